/**
 * Launcher lifecycle against a scripted daemon replaying a recorded session: begin keeps the
 * operation credential in custody, renew and complete send it, complete erases it.
 */
import assert from "node:assert/strict";
import { comparable, inOrder, type ToolRig, toolRig } from "../../../support/scripted_daemon.ts";
import { pinDaemonErrors } from "../../../support/pins.ts";
import { recorded } from "../../../support/recorded.ts";

const OPERATION = "4bf33a0d-bfbb-4eaa-8849-e9fa9c28a8fb";
const began = recorded("launcherBegin");
const renewed = recorded("launcherRenew");
const completed = recorded("launcherComplete");
const BEGIN = {
  stackId: "d6cc91ed-90d2-431e-9fcf-ecec2b20567d",
  operation: "status",
  launcherRevision: "a".repeat(64),
  callerOperationId: "7c756c8d-fcda-4a45-ba5f-26e12adfe4c4",
};
const COMPLETION = { outcome: "succeeded", exitCode: 0 };

Deno.test("launcher begin → renew → complete: the recorded requests; the credential never shown", async () => {
  await using rig = toolRig(inOrder(began.reply, renewed.reply, completed.reply));
  const held = await rig.call("portreeve_launcher_operation_begin", BEGIN);
  assert.equal(held.data!.operationId, OPERATION);
  const credentialHandle = held.data!.credentialHandle as string;
  const beat = await rig.call("portreeve_launcher_operation_renew", {
    operationId: OPERATION,
    credentialHandle,
  });
  assert.equal(beat.data!.operationDeadlineAt, renewed.data.operation.deadlineAt);
  const done = await rig.call("portreeve_launcher_operation_complete", {
    operationId: OPERATION,
    credentialHandle,
    completion: COMPLETION,
  });
  assert.deepEqual(
    rig.daemon.sent.map(comparable),
    [began.sent, renewed.sent, completed.sent].map(comparable),
  );
  assert.equal((done.data!.operation as { outcome: string }).outcome, "succeeded");
  const credential = began.data.credential as string;
  assert.ok(!JSON.stringify([held, beat, done]).includes(credential));
  assert.equal(rig.custody.heldLauncher(OPERATION), undefined, "erased once complete");
});

Deno.test("launcher begin: the same callerOperationId again re-reads the held operation, begins nothing", async () => {
  const current = recorded("launcherOperationGet");
  await using rig = toolRig(inOrder(began.reply, current.reply));
  const first = await rig.call("portreeve_launcher_operation_begin", BEGIN);
  const second = await rig.call("portreeve_launcher_operation_begin", BEGIN);
  assert.equal(second.data!.changed, false);
  assert.equal(second.data!.credentialHandle, first.data!.credentialHandle);
  assert.deepEqual(rig.daemon.sent.slice(1).map(comparable), [comparable(current.sent)]);
});

Deno.test("launcher begin: attached is for start only, refused before the daemon", async () => {
  await using rig = toolRig(inOrder());
  const r = await rig.call("portreeve_launcher_operation_begin", {
    ...BEGIN,
    executionMode: "attached",
  });
  assert.equal(r.error?.code, "portreeve_invalid_input");
  assert.equal(rig.daemon.sent.length, 0);
});

Deno.test("launcher complete: a repeat returns the recorded completion and sends nothing", async () => {
  await using rig = toolRig(inOrder(began.reply, completed.reply));
  const held = await rig.call("portreeve_launcher_operation_begin", BEGIN);
  const args = {
    operationId: OPERATION,
    credentialHandle: held.data!.credentialHandle,
    completion: COMPLETION,
  };
  await rig.call("portreeve_launcher_operation_complete", args);
  const again = await rig.call("portreeve_launcher_operation_complete", args);
  assert.equal(again.isError, false);
  assert.equal(rig.daemon.sent.length, 2);
});

const handle = (rig: ToolRig) => rig.custody.heldLauncher(OPERATION)!.handle;
const prepare = (rig: ToolRig) => rig.call("portreeve_launcher_operation_begin", BEGIN);

pinDaemonErrors("portreeve_launcher_operation_begin", BEGIN);
pinDaemonErrors(
  "portreeve_launcher_operation_complete",
  (rig) => ({ operationId: OPERATION, credentialHandle: handle(rig), completion: COMPLETION }),
  [began.reply],
  prepare,
);

Deno.test("portreeve_launcher_operation_renew: a refused heartbeat keeps the daemon's code", async () => {
  await using rig = toolRig(inOrder(began.reply, recorded("claimNotFound").reply));
  await prepare(rig);
  const r = await rig.call("portreeve_launcher_operation_renew", {
    operationId: OPERATION,
    credentialHandle: handle(rig),
  });
  assert.equal(r.isError, true);
  assert.equal(r.error?.code, "portreeve_not_found");
});
