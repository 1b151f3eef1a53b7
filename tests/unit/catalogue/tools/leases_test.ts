/**
 * Leases family against a scripted daemon replaying a recorded session: acquire keeps the
 * token in custody and hands out a handle; confirm and abandon send that token, once.
 */
import assert from "node:assert/strict";
import { comparable, inOrder, ok, toolRig } from "../../../support/scripted_daemon.ts";
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

/** The recorded lease's expiry: the daemon set it 15 s from the start of the acquire. */
const RECORDED_EXPIRY = Date.parse(recorded("leaseAcquire").data.expiresAt as string);

Deno.test("lease_acquire: a lease answered after its expiry is portreeve_lease_lapsed, never held", async () => {
  const acquire = recorded("leaseAcquire");
  // A busy daemon answered 8.1 s after the expiry it set from the acquire's start.
  await using rig = toolRig(inOrder(acquire.reply, acquire.reply), {
    start: RECORDED_EXPIRY + 8_100,
  });
  const leased = await rig.call("portreeve_lease_acquire", ACQUIRE);
  assert.equal(leased.ok, false, "not `changed: true`, not `Leased port …`");
  assert.equal(leased.error!.code, "portreeve_lease_lapsed");
  assert.equal(leased.error!.retryable, true);
  // The message names the lease and its expiry, so the details do not repeat them.
  assert.ok(leased.error!.message.includes(`lease ${acquire.data.leaseId}`));
  assert.match(leased.error!.message, /8\.1 s after its expiry/);
  assert.equal(rig.custody.size, 0, "nothing held");
  assert.deepEqual(rig.daemon.sent.map((s) => s.path), ["/v1/leases/acquire"], "nor renewed");
  // Acquiring again is a new request, not a replay of the dead lease.
  await rig.call("portreeve_lease_acquire", ACQUIRE);
  assert.equal(rig.daemon.sent.length, 2);
});

Deno.test("lease_acquire: a lease about to expire is renewed before it is reported held", async () => {
  const acquire = recorded("leaseAcquire");
  const renewedUntil = new Date(RECORDED_EXPIRY - 3_000 + 15_000).toISOString();
  // 3 s left, from a daemon that takes 5 s to answer: a renewal scheduled later would not land.
  await using rig = toolRig(
    inOrder(acquire.reply, ok({ leaseId: acquire.data.leaseId, expiresAt: renewedUntil })),
    { start: RECORDED_EXPIRY - 3_000, daemonDelayMs: 5_000 },
  );
  const leased = await rig.call("portreeve_lease_acquire", ACQUIRE);
  assert.deepEqual(rig.daemon.sent.map((s) => s.path), [
    "/v1/leases/acquire",
    `/v1/leases/${acquire.data.leaseId}/renew`,
  ]);
  assert.equal(leased.data!.changed, true);
  assert.equal(leased.data!.leaseExpiresAt, renewedUntil, "the expiry the renewal set");
});

Deno.test("lease_acquire: cancelled while its lease is taken in, the lease is given back, not held", async () => {
  const acquire = recorded("leaseAcquire");
  const renewedUntil = new Date(RECORDED_EXPIRY - 3_000 + 15_000).toISOString();
  const host = new AbortController();
  // The answer came close to its expiry, so custody renews it before reporting it held; the
  // host cancels while that renewal is with the daemon.
  await using rig = toolRig((sent) => {
    if (sent.path.endsWith("/renew")) {
      host.abort();
      return ok({ leaseId: acquire.data.leaseId, expiresAt: renewedUntil });
    }
    if (sent.path.endsWith("/abandon")) return ok({ at: renewedUntil });
    return acquire.reply;
  }, { start: RECORDED_EXPIRY - 3_000, daemonDelayMs: 5_000 });
  const leased = await rig.call("portreeve_lease_acquire", ACQUIRE, host.signal);
  assert.equal(leased.ok, false);
  assert.equal(leased.error?.code, "portreeve_cancelled");
  assert.equal(leased.error?.details.lateAnswer, "given back");
  const abandon = rig.daemon.sent.at(-1)!;
  assert.equal(abandon.path, `/v1/leases/${acquire.data.leaseId}/abandon`);
  assert.equal(abandon.payload.reason, "client-cancelled");
  assert.equal(rig.custody.size, 0, "custody holds nothing the host will never hear of");
});
