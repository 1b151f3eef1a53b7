/** Daemon records as the protocol writes them, for tests that need many of their own. */
import type { Json } from "../../src/shared/json.ts";

/** The n-th test id, a UUID. */
export const testId = (n: number): string =>
  `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

/** A sticky claim on port 41000 + n (`component` defaults to `c<n>`). */
export function claimRecord(
  n: number,
  { project = "p", workspaceRoot, component = `c${n}` }: {
    project?: string;
    workspaceRoot: string;
    component?: string;
  },
): Json {
  return {
    id: testId(n),
    identity: {
      project,
      workspaceRoot,
      service: component,
      component,
      endpoint: "http",
      transport: "tcp",
    },
    mode: "sticky",
    assignedPort: 41000 + n,
    preferredPort: null,
    exactPort: null,
    assignmentExpiresAt: null,
    lastUsedAt: "2026-12-01T10:00:00.000Z",
  };
}
