// Wire views of stored records (copies, so callers can never mutate state by accident).
import type { Activation, Claim, Generation, LauncherRecord, Run, Stack } from "./state.ts";
import { clone } from "./util.ts";

export function claimView(claim: Claim): Record<string, unknown> {
  return {
    id: claim.id,
    identity: identityView(claim),
    mode: claim.mode,
    assignedPort: claim.assignedPort,
    preferredPort: claim.preferredPort,
    exactPort: claim.exactPort,
    assignmentExpiresAt: claim.assignmentExpiresAt,
    createdAt: claim.createdAt,
    updatedAt: claim.updatedAt,
    lastUsedAt: claim.lastUsedAt,
  };
}

export function identityView(claim: Claim): Record<string, unknown> {
  return {
    project: claim.project,
    workspaceRoot: claim.workspaceRoot,
    service: claim.component,
    component: claim.component,
    endpoint: claim.endpoint,
    transport: "tcp",
  };
}

export function runView(run: Run): Record<string, unknown> {
  const { activationId: _activationId, ...wire } = run;
  return clone(wire);
}

export const stackView = (stack: Stack): Record<string, unknown> => clone({ ...stack });
export const generationView = (g: Generation): Record<string, unknown> => clone({ ...g });
export const activationView = (a: Activation): Record<string, unknown> => clone({ ...a });
export const launcherView = (r: LauncherRecord): Record<string, unknown> => clone({ ...r });
