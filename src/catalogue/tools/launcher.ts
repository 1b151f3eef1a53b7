/** Launcher operations (read side): coordination records of a stack's launcher. */
import { z } from "zod";
import { defineTool } from "../define.ts";
import { launcherOperation, page, uuid } from "../shapes.ts";
import { id, read } from "../daemon_calls.ts";
import { pageSummary, paginate, scopeOf } from "../pagination.ts";

// Records arrive whole from the daemon; `startedAt` orders them even though not advertised.
type Operation = z.output<typeof launcherOperation> & { startedAt: string };
const CAPS = ["launcher-operations-v1"];
/** The daemon keeps at most 20 terminal records per stack, so one request fetches them all. */
const DAEMON_MAX = 20;

export const launcherOperationGet = defineTool({
  name: "portreeve_launcher_operation_get",
  title: "Get launcher operation",
  kind: "read",
  capabilities: CAPS,
  description: "Read one launcher operation: state, deadline, outcome and evidence.",
  input: z.strictObject({ operationId: uuid() }),
  output: launcherOperation,
  call: async (ctx, { operationId }) =>
    await read(ctx, `/v1/launcher-operations/${id(operationId)}`) as Operation,
  summary: (o) =>
    `${o.operation} operation ${o.id} is ${o.state}${
      o.outcome ? `, ${o.outcome}` : `, deadline ${o.deadlineAt}`
    }.`,
});

export const launcherOperationsList = defineTool({
  name: "portreeve_launcher_operations_list",
  title: "List launcher operations",
  kind: "read",
  capabilities: CAPS,
  description: "A stack's last 20 launcher operations, newest first.",
  input: z.strictObject({
    stackId: uuid(),
    limit: z.int().min(1).max(DAEMON_MAX).default(DAEMON_MAX),
    afterCursor: z.string().min(1).optional(),
  }),
  output: page(launcherOperation),
  async call(ctx, { stackId, limit, afterCursor }) {
    const all = await read(ctx, `/v1/stacks/${id(stackId)}/launcher-operations`, {
      limit: DAEMON_MAX,
    }) as Operation[];
    // Newest first: invert the timestamp order through a descending key.
    const key = (o: Operation) => [-Date.parse(o.completedAt ?? o.startedAt), o.id];
    return paginate(all, key, { scope: scopeOf("launcher", { stackId }), limit, afterCursor });
  },
  summary: ({ items, page }) =>
    pageSummary("operation", items, page, (o) => `${o.operation} ${o.outcome ?? o.state}`),
});
