/** Launcher operations (read side): coordination records of a stack's launcher. */
import { z } from "zod";
import { defineTool } from "../define.ts";
import { page, pageInput, uuid } from "../shapes.ts";
import { launcherOperation } from "../records.ts";
import { read } from "../daemon_calls.ts";
import { get } from "../routes.ts";
import { readTool } from "../read_tool.ts";
import { Capability } from "../../daemon/capabilities.ts";
import { paginate, scopeOf } from "../../results/pagination.ts";

const CAPS = [Capability.launcherOperations];
/** The daemon keeps at most 20 terminal records per stack, so one request fetches them all. */
const DAEMON_MAX = 20;

const listOperations = get("/v1/stacks/{stackId}/launcher-operations", z.array(launcherOperation));

export const launcherOperationGet = readTool({
  name: "portreeve_launcher_operation_get",
  title: "Get launcher operation",
  detail: true,
  capabilities: CAPS,
  description: "One launcher operation.",
  input: z.strictObject({ operationId: uuid() }),
  route: get("/v1/launcher-operations/{operationId}", launcherOperation),
});

export const launcherOperationsList = defineTool({
  name: "portreeve_launcher_operations_list",
  title: "List launcher operations",
  detail: true,
  kind: "read",
  capabilities: CAPS,
  description: "A stack's last 20 launcher operations.",
  input: z.strictObject({
    stackId: uuid(),
    limit: z.int().min(1).max(DAEMON_MAX).default(DAEMON_MAX),
    afterCursor: pageInput.afterCursor,
  }),
  output: page(launcherOperation),
  routes: [listOperations],
  async call(ctx, { stackId, limit, afterCursor }) {
    // The daemon lists them newest first; pages keep its order.
    const all = await read(ctx, listOperations, { stackId }, { limit: DAEMON_MAX });
    const scope = scopeOf("portreeve_launcher_operations_list", { stackId });
    return paginate(all, (o) => o.id, {
      scope,
      limit,
      afterCursor,
      fit: ctx.pageFit,
      readWhole: () => "portreeve_launcher_operation_get (operationId: its id)",
    });
  },
});
