/** Launcher family (read side) against a scripted daemon. */
import assert from "node:assert/strict";
import { comparable, inOrder, toolRig } from "../../../support/scripted_daemon.ts";
import { pinDaemonErrors, pinDetail } from "../../../support/pins.ts";
import { recorded } from "../../../support/recorded.ts";

const STACK = "d6cc91ed-90d2-431e-9fcf-ecec2b20567d";
const OPERATION = "4bf33a0d-bfbb-4eaa-8849-e9fa9c28a8fb";

Deno.test("launcher_operation_get: GET /v1/launcher-operations/{id}; state and outcome", async () => {
  const get = recorded("launcherOperationGet");
  await using rig = toolRig(inOrder(get.reply));
  const r = await rig.call("portreeve_launcher_operation_get", { operationId: OPERATION });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(get.sent)]);
  assert.equal(r.data!.id, OPERATION);
  assert.equal(r.data!.state, get.data.state);
});

Deno.test("launcher_operations_list: asks for the daemon's 20 and pages them here", async () => {
  const list = recorded("launcherOperationsList");
  await using rig = toolRig(inOrder(list.reply));
  const r = await rig.call("portreeve_launcher_operations_list", { stackId: STACK, limit: 5 });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(list.sent)]);
  assert.deepEqual((r.data!.items as { id: string }[]).map((o) => o.id), [OPERATION]);
});

pinDaemonErrors("portreeve_launcher_operation_get", { operationId: OPERATION });
pinDaemonErrors("portreeve_launcher_operations_list", { stackId: STACK });
pinDetail(
  "portreeve_launcher_operation_get",
  { operationId: OPERATION },
  recorded("launcherOperationGet").reply,
);
pinDetail(
  "portreeve_launcher_operations_list",
  { stackId: STACK },
  recorded("launcherOperationsList").reply,
);
