/** Launcher operations (read side): coordination records of a stack's launcher. */
import { z } from "zod";
import { defineTool } from "../define.ts";
import { launcherOperation, page, pageInput, timestamp, uuid } from "../shapes.ts";
import { read } from "../daemon_calls.ts";
import { get } from "../routes.ts";
import { readTool } from "../read_tool.ts";
import { Capability } from "../../daemon/capabilities.ts";
import { pageSummary, paginate, scopeOf } from "../../results/pagination.ts";

const CAPS = [Capability.launcherOperations];
/** The daemon keeps at most 20 terminal records per stack, so one request fetches them all. */
const DAEMON_MAX = 20;

// Listed records carry `startedAt`, which orders them though the output omits it.
const listOperations = get(
  "/v1/stacks/{stackId}/launcher-operations",
  z.array(launcherOperation.extend({ startedAt: timestamp() })),
);
type Listed = z.output<typeof listOperations.schema>[number];

export const launcherOperationGet = readTool({
  name: "portreeve_launcher_operation_get",
  title: "Get launcher operation",
  detail: true,
  capabilities: CAPS,
  description: "One launcher operation: state, deadline, outcome, evidence.",
  input: z.strictObject({ operationId: uuid() }),
  route: get("/v1/launcher-operations/{operationId}", launcherOperation),
  summary: (o) =>
    `${o.operation} operation ${o.id} is ${o.state}${
      o.outcome ? `, ${o.outcome}` : `, deadline ${o.deadlineAt}`
    }.`,
});

export const launcherOperationsList = defineTool({
  name: "portreeve_launcher_operations_list",
  title: "List launcher operations",
  detail: true,
  kind: "read",
  capabilities: CAPS,
  description: "A stack's last 20 launcher operations, newest first.",
  input: z.strictObject({
    stackId: uuid(),
    limit: z.int().min(1).max(DAEMON_MAX).default(DAEMON_MAX),
    afterCursor: pageInput.afterCursor,
  }),
  output: page(launcherOperation),
  routes: [listOperations],
  async call(ctx, { stackId, limit, afterCursor }) {
    const all = await read(ctx, listOperations, { stackId }, { limit: DAEMON_MAX });
    // Newest first: invert the timestamp order through a descending key.
    const key = (o: Listed) => [-Date.parse(o.completedAt ?? o.startedAt), o.id];
    const scope = scopeOf("portreeve_launcher_operations_list", { stackId });
    return paginate(all, key, {
      scope,
      limit,
      afterCursor,
      itemChars: ctx.itemChars,
      readWhole: () => "portreeve_launcher_operation_get (operationId: its id)",
    });
  },
  summary: ({ items, page }) =>
    pageSummary("operation", items, page, (o) => `${o.operation} ${o.outcome ?? o.state}`),
});
