/**
 * Leases family against a scripted daemon replaying a recorded session: acquire keeps the
 * token in custody and hands out a handle; confirm and abandon send that token, once.
 */
import assert from "node:assert/strict";
import { comparable, inOrder, toolRig } from "../../../support/scripted_daemon.ts";
import { pinDaemonErrors } from "../../../support/pins.ts";
import { recorded, RECORDED_ACQUIRE } from "../../../support/recorded.ts";

const ACQUIRE = RECORDED_ACQUIRE;

Deno.test("lease_acquire → lease_confirm: the recorded requests, and no token in any result", async () => {
  const acquire = recorded("leaseAcquire");
  const confirm = recorded("leaseConfirm");
  await using rig = toolRig(inOrder(acquire.reply, confirm.reply));
  const leased = await rig.call("portreeve_lease_acquire", ACQUIRE);
  assert.equal(leased.data!.port, 18080);
  assert.equal(leased.data!.changed, true);
  const handle = leased.data!.credentialHandle as string;
  const confirmed = await rig.call("portreeve_lease_confirm", {
    credentialHandle: handle,
    rootPid: 14390,
  });
  assert.deepEqual(rig.daemon.sent.map(comparable), [acquire.sent, confirm.sent].map(comparable));
  assert.equal(confirmed.data!.runId, confirm.data.runId);
  const shown = JSON.stringify([leased, confirmed]);
  assert.ok(!shown.includes(acquire.data.leaseToken), "the lease token stays in custody");
  const again = await rig.call("portreeve_lease_confirm", {
    credentialHandle: handle,
    rootPid: 14390,
  });
  assert.equal(again.data!.changed, false, "a repeat returns the recorded confirmation");
  assert.equal(rig.daemon.sent.length, 2, "and sends nothing");
});

Deno.test("lease_acquire: a repeat returns the held lease without asking the daemon", async () => {
  const acquire = recorded("leaseAcquire");
  await using rig = toolRig(inOrder(acquire.reply));
  const first = await rig.call("portreeve_lease_acquire", ACQUIRE);
  const second = await rig.call("portreeve_lease_acquire", ACQUIRE);
  assert.equal(second.data!.changed, false);
  assert.equal(second.data!.credentialHandle, first.data!.credentialHandle);
  assert.equal(rig.daemon.sent.length, 1);
});

Deno.test("lease_acquire → lease_abandon: the reason and the held token are sent", async () => {
  const acquire = recorded("leaseAcquireToAbandon");
  const abandon = recorded("leaseAbandon");
  await using rig = toolRig(inOrder(acquire.reply, abandon.reply));
  const leased = await rig.call("portreeve_lease_acquire", {
    claim: acquire.sent.payload.claim as Record<string, unknown>,
    allocation: { mode: "sticky" },
  });
  const abandoned = await rig.call("portreeve_lease_abandon", {
    credentialHandle: leased.data!.credentialHandle,
    reason: "startup-error",
  });
  assert.deepEqual(rig.daemon.sent[1], {
    ...abandon.sent,
    capabilities: abandon.sent.capabilities,
  });
  assert.equal(abandoned.data!.changed, true);
});

Deno.test("run_release: POST /v1/runs/{id}/release; a second release says unchanged", async () => {
  const first = recorded("runRelease");
  const second = recorded("runReleaseAgain");
  await using rig = toolRig(inOrder(first.reply, second.reply));
  const runId = "fc2cd706-8bc4-42ce-9423-3ec0677b8b5a";
  const released = await rig.call("portreeve_run_release", { runId });
  const again = await rig.call("portreeve_run_release", { runId });
  assert.deepEqual(rig.daemon.sent.map(comparable), [first.sent, second.sent].map(comparable));
  assert.equal(released.data!.changed, true);
  assert.equal(again.data!.changed, false);
});

Deno.test("lease_confirm: an unknown handle is refused before the daemon is asked", async () => {
  await using rig = toolRig(inOrder());
  const r = await rig.call("portreeve_lease_confirm", {
    credentialHandle: "h".repeat(43),
    rootPid: 1234,
  });
  assert.equal(r.error?.code, "portreeve_credential_unavailable");
  assert.equal(rig.daemon.sent.length, 0);
});

const held = recorded("leaseAcquire");
pinDaemonErrors("portreeve_lease_acquire", ACQUIRE);
pinDaemonErrors(
  "portreeve_lease_confirm",
  (rig) => ({ credentialHandle: rig.custody.heldLease(held.data.leaseId)!.handle, rootPid: 1 }),
  [held.reply],
  (rig) => rig.call("portreeve_lease_acquire", ACQUIRE),
);
pinDaemonErrors(
  "portreeve_lease_abandon",
  (rig) => ({
    credentialHandle: rig.custody.heldLease(held.data.leaseId)!.handle,
    reason: "client-cancelled",
  }),
  [held.reply],
  (rig) => rig.call("portreeve_lease_acquire", ACQUIRE),
);
pinDaemonErrors("portreeve_run_release", { runId: "fc2cd706-8bc4-42ce-9423-3ec0677b8b5a" });
