/**
 * The arrival rule: a lease the daemon has just granted is never reported held once its expiry
 * has passed, or while it falls before a renewal could land. Dead on arrival, it is refused as
 * `portreeve_lease_lapsed` (retryable) with nothing held; within the need, it is renewed at once
 * and reported held only once that renewal landed, else refused the same way. Fake clock,
 * scripted renewers: no real time passes.
 */
import assert from "node:assert/strict";
import { setupCustody, T } from "../../support/custody_fixture.ts";
import { FakeRenewalError } from "../../support/fake_renewers.ts";
import {
  arrival,
  arrivalNeed,
  type Custody,
  LeaseLapsedError,
  renewalMargin,
} from "../../../src/custody/mod.ts";

const TTL = 15_000;

Deno.test("arrival: past is lapsed, within the need is renewed first, beyond it held", () => {
  const now = 1_000_000;
  assert.equal(arrival(now, now, 10_000), "lapsed");
  assert.equal(arrival(now, now - 8_100, 10_000), "lapsed");
  assert.equal(arrival(now, now + 1, 10_000), "renew-now");
  assert.equal(arrival(now, now + 10_000, 10_000), "renew-now");
  assert.equal(arrival(now, now + 10_001, 10_000), "hold");
});

Deno.test("arrivalNeed: time for a renewal to land, and never less than custody's own margin", () => {
  assert.equal(arrivalNeed(TTL, 0), renewalMargin(TTL, 0), "a prompt daemon: the 10 s margin");
  assert.equal(arrivalNeed(TTL, 0), 10_000);
  assert.equal(arrivalNeed(TTL, 12_000), 13_000, "a busy daemon: its delay and a second");
  assert.equal(arrivalNeed(120_000, 2_000), 40_000);
});

/** The refusal `admitLease` rejects with, checked whole. */
async function lapsed(admitting: Promise<unknown>): Promise<LeaseLapsedError> {
  const error = await admitting.then(
    () => assert.fail("reported held"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof LeaseLapsedError, String(error));
  assert.equal(error.code, "portreeve_lease_lapsed");
  assert.equal(error.retryable, true);
  return error;
}

function assertNothingHeld(custody: Custody): void {
  assert.equal(custody.size, 0);
  assert.equal(custody.heldLease("L1"), undefined);
  assert.equal(custody.takeWarnings(), undefined, "told by the error, not again as a warning");
}

Deno.test("a lease that arrives already expired is refused as lapsed, unrenewed, nothing held", async () => {
  const { clock, renewers, custody, t0 } = setupCustody();
  const token = "Qm7xK2pL9vR4tW8yZ1bN6cJ3hF5dS0gA_eU-iO7kM2q";
  // Acquired 23.1 s ago by a busy daemon that set its expiry 15 s after it started.
  const error = await lapsed(
    custody.admitLease({ leaseId: "L1", token, expiresAt: t0 - 8_100 }, t0 - 23_100),
  );
  assert.match(error.message, /answer came 8\.1 s after its expiry/);
  assert.deepEqual(error.details, {
    leaseId: "L1",
    expiresAt: new Date(t0 - 8_100).toISOString(),
  });
  assert.equal(renewers.calls.length, 0, "a dead lease is not renewed");
  assertNothingHeld(custody);
  assert.equal(custody.scrub(`"${token}"`), '"[redacted]"', "its token is still scrubbed");
  await clock.advance(60_000);
  assert.equal(renewers.calls.length, 0);
  await custody.close();
});

Deno.test("a lease with less left than a renewal needs is renewed at once, held only once it lands", async () => {
  const { clock, renewers, custody, t0 } = setupCustody();
  const release = renewers.block();
  let reported = false;
  // Acquire sent 12 s ago; its 15 s TTL counts from then, so 3 s are left.
  const admitting = custody.admitLease(
    { leaseId: "L1", token: T, expiresAt: t0 + 3_000 },
    t0 - 12_000,
  )
    .then((view) => {
      reported = true;
      return view;
    });
  await clock.flush();
  assert.deepEqual(renewers.calls.map((c) => [c.id, c.at - t0]), [["L1", 0]], "renewed at once");
  assert.equal(reported, false, "not reported held while its renewal is out");
  await clock.advance(1_000);
  release();
  const held = await admitting;
  assert.equal(held.expiresAt, t0 + 1_000 + TTL, "held with the renewed expiry");
  assert.equal(custody.takeWarnings(), undefined);
  await custody.close();
});

Deno.test("the TTL is judged from when the acquire was sent: 9 s left of 15 is renewed first", async () => {
  const { clock, renewers, custody, t0 } = setupCustody();
  // 9 s left would look like a fresh 9 s TTL if judged from the answer (renewed at 6 s left).
  await custody.admitLease({ leaseId: "L1", token: T, expiresAt: t0 + 9_000 }, t0 - 6_000);
  assert.deepEqual(renewers.calls.map((c) => c.at - t0), [0]);
  assert.equal(custody.heldLease("L1")?.expiresAt, t0 + TTL);
  await clock.advance(1);
  await custody.close();
});

Deno.test("a lease with enough left is held at once, and renewed by the 15 s TTL's cadence", async () => {
  const { clock, renewers, custody, t0 } = setupCustody();
  const held = await custody.admitLease(
    { leaseId: "L1", token: T, expiresAt: t0 + 14_000 },
    t0 - 1_000,
  );
  assert.equal(held.expiresAt, t0 + 14_000);
  assert.equal(renewers.calls.length, 0);
  // A 15 s TTL's margin is 10 s, but never sooner than a third of what is left (14 s / 3).
  await clock.advance(4_665);
  assert.equal(renewers.calls.length, 0);
  await clock.advance(1);
  assert.deepEqual(renewers.calls.map((c) => c.at - t0), [4_666]);
  await custody.close();
});

Deno.test("a busy daemon: a lease with less left than its delay and a second is renewed first", async () => {
  const { renewers, custody, t0 } = setupCustody({ daemonDelayMs: () => 12_000 });
  await custody.admitLease({ leaseId: "L1", token: T, expiresAt: t0 + 12_500 }, t0 - 2_500);
  assert.equal(renewers.calls.length, 1);
  await custody.close();
});

Deno.test("when the renewal sent at once is refused, the lease is refused as lapsed with its failure", async () => {
  const { clock, renewers, custody, t0 } = setupCustody();
  renewers.failNext(
    new FakeRenewalError("portreeve_lease_not_pending", false, "Lease L1 is expired."),
  );
  const error = await lapsed(
    custody.admitLease({ leaseId: "L1", token: T, expiresAt: t0 + 2_000 }, t0 - 13_000),
  );
  assert.equal(error.renewalFailure?.code, "portreeve_lease_not_pending");
  assert.match(error.message, /the renewal sent at once failed \(portreeve_lease_not_pending/);
  assertNothingHeld(custody);
  await clock.advance(60_000);
  assert.equal(renewers.calls.length, 1, "and not renewed again");
  await custody.close();
});

Deno.test("a retryable failure of that renewal still refuses it: it cannot be kept in time", async () => {
  const { renewers, custody, t0 } = setupCustody();
  renewers.failNext(new FakeRenewalError("portreeve_unavailable", true, "daemon restarting"));
  const error = await lapsed(
    custody.admitLease({ leaseId: "L1", token: T, expiresAt: t0 + 2_000 }, t0 - 13_000),
  );
  assert.equal(error.renewalFailure?.code, "portreeve_unavailable");
  assertNothingHeld(custody);
  await custody.close();
});

Deno.test("a renewal still unanswered at the expiry refuses the lease once its answer can no longer come", async () => {
  const { clock, renewers, custody, t0 } = setupCustody();
  renewers.block(); // the daemon's queue is longer than the lease has left
  let settled = false;
  const admitting = custody.admitLease(
    { leaseId: "L1", token: T, expiresAt: t0 + 2_000 },
    t0 - 13_000,
  );
  admitting.catch(() => {}).finally(() => settled = true);
  await clock.advance(3_999);
  assert.equal(settled, false, "its answer may still come just past the expiry");
  await clock.advance(1);
  const error = await lapsed(admitting);
  assert.equal(error.renewalFailure?.code, "portreeve_unavailable");
  assertNothingHeld(custody);
  await custody.close();
});

Deno.test("an activation is judged by its soonest lease: one dead on arrival refuses it all", async () => {
  const { renewers, custody, t0 } = setupCustody();
  const leases = [
    { leaseId: "L1", token: T + "1", expiresAt: t0 + 14_000, component: "web", endpoint: "http" },
    { leaseId: "L2", token: T + "2", expiresAt: t0 - 1, component: "db", endpoint: "pg" },
  ];
  const error = await lapsed(custody.admitActivation("A1", leases, t0 - 15_001));
  assert.deepEqual(error.details, {
    activationId: "A1",
    expiresAt: new Date(t0 - 1).toISOString(),
  });
  assert.equal(custody.heldActivation("A1"), undefined);
  assert.equal(custody.size, 0);
  assert.equal(renewers.calls.length, 0);
  await custody.close();
});
