/**
 * Keeping credentials alive (upkeep.ts): renewal failures are never swallowed (a transient one
 * keeps the credential and warns; lasting until the TTL, it erases); renewals race settlement,
 * coalesce and are never re-sent; a late one warns; a TTL or deadline that passes erases.
 */
import assert from "node:assert/strict";
import {
  holdActivationA1,
  holdLauncherO1,
  lapsedWith,
  setupCustody as setup,
  T,
} from "../../support/custody_fixture.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { FakeRenewalError, FakeRenewers } from "../../support/fake_renewers.ts";
import { CredentialUnavailableError, Custody, MINUTE_MS } from "../../../src/custody/mod.ts";

const unavailable = () => new FakeRenewalError("portreeve_unavailable", true, "daemon is down");

Deno.test("a transient failure keeps the credential and is reported on the next use", async () => {
  const { clock, renewers, custody, events, t0 } = setup();
  const held = custody.holdLease({ leaseId: "L1", token: T, expiresAt: t0 + 15_000 });
  renewers.failNext(unavailable());
  await clock.advance(5_000);
  assert.deepEqual(custody.useLease(held.handle), {
    leaseId: "L1",
    token: T,
    renewalFailure: { code: "portreeve_unavailable", message: "daemon is down", at: t0 + 5_000 },
  });
  assert.deepEqual(events.at(-1), {
    type: "renewal-failed",
    kind: "lease",
    id: "L1",
    retryable: true,
    failure: { code: "portreeve_unavailable", message: "daemon is down", at: t0 + 5_000 },
  });
  // Retry on the normal schedule: 10 s left → 3333 ms; success clears the failure.
  await clock.advance(3_333);
  assert.deepEqual(renewers.calls.map((c) => c.at - t0), [5_000, 8_333]);
  assert.deepEqual(custody.useLease(held.handle), { leaseId: "L1", token: T });
  await custody.close();
});

Deno.test("transient failures until the TTL elapses erase with the last failure", async () => {
  const { clock, renewers, custody, t0 } = setup();
  const held = custody.holdLease({ leaseId: "L1", token: T, expiresAt: t0 + 15_000 });
  renewers.failNext(unavailable(), 1_000);
  await clock.advance(14_000);
  assert.ok(custody.useLease(held.handle).renewalFailure);
  await clock.advance(1_000);
  assert.equal(custody.size, 0);
  assert.equal(clock.pending, 0);
  const last = renewers.calls.at(-1)!.at;
  assert.ok(last < t0 + 15_000);
  assert.throws(() => custody.useLease(held.handle), lapsedWith("portreeve_unavailable", last));
  await custody.close();
});

Deno.test("a renewal racing settlement does not resurrect the credential", async () => {
  const { clock, renewers, custody, t0 } = setup();
  const held = custody.holdLease({ leaseId: "L1", token: T, expiresAt: t0 + 15_000 });
  const release = renewers.block();
  await clock.advance(5_000);
  assert.equal(renewers.calls.length, 1);
  assert.equal(custody.settleLease(held.handle), true);
  assert.ok(renewers.calls[0].signal.aborted);
  release();
  await clock.advance(MINUTE_MS);
  assert.throws(
    () => custody.useLease(held.handle),
    (e: unknown) => e instanceof CredentialUnavailableError && e.renewalFailure === undefined,
  );
  assert.equal(custody.heldLease("L1"), undefined);
  assert.equal(custody.size, 0);
  assert.equal(clock.pending, 0);
  assert.equal(renewers.calls.length, 1);
  await custody.close();
});

Deno.test("a batch rejected because a sibling settled mid-flight is retried, not fatal", async () => {
  const { clock, renewers, custody, events, t0 } = setup();
  const act = holdActivationA1(custody, t0);
  const release = renewers.block();
  await clock.advance(5_000);
  custody.settleActivationLeases("A1", new Set(["L2"])); // L1 confirmed meanwhile
  renewers.failNext(new FakeRenewalError("portreeve_lease_not_pending", false));
  release();
  await clock.flush();
  const use = custody.useActivationLease("A1", act.leases[1].handle);
  assert.equal(use.token, T + "2");
  assert.equal(use.renewalFailure, undefined);
  assert.ok(!events.some((e) => e.type === "renewal-failed"));
  await clock.advance(3_333);
  assert.deepEqual(renewers.calls.map((c) => c.secrets), [[T + "1", T + "2"], [T + "2"]]);
  assert.throws(
    () => custody.useActivationLease("A1", act.leases[0].handle),
    CredentialUnavailableError,
  );
  await custody.close();
});

Deno.test("concurrent renewals of one operation are coalesced", async () => {
  const { clock, renewers, custody, t0 } = setup();
  const op = holdLauncherO1(custody, t0);
  const release = renewers.block();
  await clock.advance(10_000); // background renewal in flight
  const a = custody.renewLauncherNow("O1", op.handle);
  const b = custody.renewLauncherNow("O1", op.handle, 20);
  assert.equal(renewers.calls.length, 1);
  release();
  const [ra, rb] = await Promise.all([a, b]);
  assert.equal(ra.deadlineAt, t0 + 40_000);
  assert.deepEqual(ra.renewal, rb.renewal);
  assert.equal(rb.custodyChanged, true);
  assert.equal(renewers.calls.length, 1);
  assert.deepEqual(clock.dueTimes, [t0 + 20_000, t0 + 20 * MINUTE_MS], "one renewal timer");
  await custody.close();
});

Deno.test("an unanswered renewal is never re-sent; late, the holder is warned; then it lapses", async () => {
  const { clock, renewers, custody, t0, events } = setup();
  const held = custody.holdLease({ leaseId: "L1", token: T, expiresAt: t0 + 60_000 });
  renewers.block(); // never released
  await clock.advance(40_000); // a third of the 60 s TTL left
  assert.equal(renewers.calls.length, 1);
  assert.equal(renewers.calls[0].dueAt, t0 + 60_000, "the renewer is told how urgent it is");
  await clock.advance(9_999);
  assert.equal(custody.useLease(held.handle).renewalFailure, undefined);
  assert.equal(custody.takeWarnings(), undefined);
  await clock.advance(1); // halfway from sending to expiry
  const late = {
    code: "portreeve_unavailable",
    message: "renewal sent 10.0 s ago is still unanswered (the daemon is slow or busy); the " +
      `lease expiry is ${new Date(t0 + 60_000).toISOString()}`,
    at: t0 + 50_000,
  };
  assert.deepEqual(custody.useLease(held.handle).renewalFailure, late);
  assert.deepEqual(custody.takeWarnings(), {
    atRisk: [{ kind: "lease", id: "L1", expiresAt: t0 + 60_000, failure: late }],
    lapsed: [],
  });
  assert.deepEqual(events.at(-1), { type: "renewal-late", kind: "lease", id: "L1", failure: late });
  // Its answer may still come just past the expiry: the credential is kept a little longer.
  await clock.advanceTo(t0 + 61_999);
  assert.equal(custody.size, 1);
  assert.equal(renewers.calls.length, 1, "never a second renewal while one is in flight");
  assert.equal(renewers.calls[0].signal.aborted, false);
  await clock.advance(1);
  assert.ok(renewers.calls[0].signal.aborted);
  assert.equal(custody.size, 0);
  assert.equal(clock.pending, 0);
  const lapse = {
    code: "portreeve_unavailable",
    message: "renewal got no answer within 22.0 s, by when the credential had expired",
    at: t0 + 62_000,
  };
  assert.throws(
    () => custody.useLease(held.handle),
    (e: unknown) =>
      e instanceof CredentialUnavailableError &&
      JSON.stringify(e.renewalFailure) === JSON.stringify(lapse),
  );
  assert.deepEqual(custody.takeWarnings(), {
    atRisk: [],
    lapsed: [{ kind: "lease", id: "L1", failure: lapse }],
  });
  assert.equal(custody.takeWarnings(), undefined, "a lapse is reported once");
  await custody.close();
});

Deno.test("a late renewal that lands clears the warning", async () => {
  const { clock, renewers, custody, t0 } = setup();
  const held = custody.holdLease({ leaseId: "L1", token: T, expiresAt: t0 + 15_000 });
  const release = renewers.block();
  await clock.advance(5_000 + 5_000); // sent at 5 s with 10 s left: late at 10 s
  assert.equal(custody.takeWarnings()?.atRisk.length, 1);
  release();
  await clock.flush();
  assert.equal(custody.useLease(held.handle).renewalFailure, undefined);
  assert.equal(custody.takeWarnings(), undefined);
  assert.equal(custody.heldLease("L1")?.expiresAt, t0 + 10_000 + 15_000);
  await custody.close();
});

Deno.test("an answer that arrives just past the expiry still keeps the credential", async () => {
  const { clock, renewers, custody, t0 } = setup();
  const held = custody.holdLease({ leaseId: "L1", token: T, expiresAt: t0 + 15_000 });
  const release = renewers.block();
  await clock.advanceTo(t0 + 16_000); // sent at 5 s; the lease's expiry passed 1 s ago
  assert.equal(custody.useLease(held.handle).token, T, "kept while its answer may come");
  renewers.leaseTtlMs = 15_000;
  release(); // the daemon renewed it before the expiry; the answer was slow to come back
  await clock.flush();
  assert.equal(custody.size, 1);
  assert.equal(custody.useLease(held.handle).renewalFailure, undefined);
  await custody.close();
});

Deno.test("an onEvent that throws does not disturb custody", async () => {
  const clock = new FakeClock();
  const renewers = new FakeRenewers(clock);
  const custody = new Custody({
    clock,
    renewers,
    onEvent: () => {
      throw new Error("logger broke");
    },
  });
  const held = custody.holdLease({ leaseId: "L1", token: T, expiresAt: clock.now() + 15_000 });
  await clock.advance(20_000);
  assert.equal(renewers.calls.length, 4);
  assert.equal(custody.useLease(held.handle).token, T);
  await custody.close();
});

Deno.test("a launcher whose deadline passes unrenewed is erased with its last failure", async () => {
  const { clock, renewers, custody, t0 } = setup();
  const op = holdLauncherO1(custody, t0);
  renewers.failNext(unavailable(), 1_000);
  await clock.advance(30_000);
  assert.equal(custody.size, 0);
  assert.equal(clock.pending, 0);
  assert.throws(
    () => custody.useLauncher("O1", op.handle),
    (e: unknown) =>
      e instanceof CredentialUnavailableError &&
      e.message.includes("launcher operation could no longer be renewed") &&
      e.renewalFailure?.code === "portreeve_unavailable",
  );
  await custody.close();
});

Deno.test("a lease handed over already expired is erased at once", async () => {
  const { clock, renewers, custody, t0 } = setup();
  const held = custody.holdLease({ leaseId: "L1", token: T, expiresAt: t0 - 1 });
  await clock.advance(1);
  assert.equal(custody.size, 0);
  assert.equal(renewers.calls.length, 0);
  assert.throws(() => custody.useLease(held.handle), lapsedWith("portreeve_lease_expired", t0 + 1));
  await custody.close();
});
