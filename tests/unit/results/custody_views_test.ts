/**
 * The holder of a credential learns of renewal trouble on its next result, whatever the call:
 * `custodyWarning` on the envelope and a sentence on the summary line while a renewal is
 * failing or late, each lapse told once, nothing once renewals succeed again.
 */
import assert from "node:assert/strict";
import { daemonError, ok, type Reply, toolRig } from "../../support/scripted_daemon.ts";
import { recorded, RECORDED_ACQUIRE } from "../../support/recorded.ts";

const ACQUIRE = RECORDED_ACQUIRE;

/** A call that never reaches the daemon: any result must carry the warning. */
const UNRELATED = {
  activationId: "6ba75eb3-e1c9-4b94-839a-07be1e02136f",
  custodyMinutes: 10,
};

Deno.test("renewal trouble is on every result until it is over; a lapse is told once", async () => {
  const acquire = recorded("leaseAcquire");
  const leaseId = acquire.data.leaseId as string;
  let renewal: () => Reply = () =>
    daemonError(409, "conflict", "The daemon is busy.", { retryable: true });
  await using rig = toolRig((sent) => {
    if (sent.path === "/v1/leases/acquire") return acquire.reply;
    if (sent.path === `/v1/leases/${leaseId}/renew`) return renewal();
    throw new Error(`unscripted ${sent.method} ${sent.path}`);
  });
  const leased = await rig.call("portreeve_lease_acquire", ACQUIRE);
  assert.equal(leased.data!.custodyWarning, undefined);
  assert.equal("custodyWarning" in leased, false, "nothing to say while all is well");

  await rig.clock.advance(6_000); // the first renewal (with 10 s left) is refused, retryably
  const other = await rig.call("portreeve_activation_custody_extend", UNRELATED);
  assert.equal(other.error?.code, "portreeve_credential_unavailable");
  const warning = (other as unknown as { custodyWarning: Record<string, unknown> }).custodyWarning;
  assert.equal(warning.atRiskCount, 1);
  assert.equal(warning.lapsedCount, 0);
  assert.deepEqual(warning.atRisk, [{
    kind: "lease",
    id: leaseId,
    expiresAt: acquire.data.expiresAt,
    renewalFailure: {
      code: "portreeve_conflict",
      message: "The daemon is busy.",
      at: "2026-11-30T04:18:17.210Z", // 10 s before the expiry
    },
  }]);
  assert.match(warning.message as string, /may lapse/);
  assert.ok(
    other.text.endsWith("Custody warning: held credentials 1 at risk (see custodyWarning)."),
    other.text,
  );
  // The result about that very lease names the failure too.
  const replay = await rig.call("portreeve_lease_acquire", ACQUIRE);
  assert.equal((replay.data!.renewalFailure as { code: string }).code, "portreeve_conflict");

  renewal = () => ok({ leaseId, expiresAt: new Date(rig.clock.now() + 15_000).toISOString() });
  await rig.clock.advance(4_000); // the retry succeeds
  const calm = await rig.call("portreeve_activation_custody_extend", UNRELATED);
  assert.equal("custodyWarning" in calm, false);

  renewal = () => daemonError(409, "lease_not_pending", "Lease is expired, not pending.");
  await rig.clock.advance(10_000); // refused for good: the credential is erased
  const told = await rig.call("portreeve_activation_custody_extend", UNRELATED);
  const lapse = (told as unknown as { custodyWarning: Record<string, unknown> }).custodyWarning;
  assert.equal(lapse.atRiskCount, 0);
  assert.equal(lapse.lapsedCount, 1);
  assert.deepEqual(
    (lapse.lapsed as { id: string; renewalFailure: { code: string } }[]).map((l) => [
      l.id,
      l.renewalFailure.code,
    ]),
    [[leaseId, "portreeve_lease_not_pending"]],
  );
  assert.ok(told.text.endsWith("Custody warning: held credentials 1 lapsed (see custodyWarning)."));
  const after = await rig.call("portreeve_activation_custody_extend", UNRELATED);
  assert.equal("custodyWarning" in after, false, "told once");
});
