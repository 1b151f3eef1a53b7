/** When renewals go out: the cadence by TTL, daemon delay and launcher deadline. */
import assert from "node:assert/strict";
import {
  holdLauncherO1,
  setupCustody,
  setupCustody as setup,
  T,
} from "../../support/custody_fixture.ts";
import type { FakeRenewers } from "../../support/fake_renewers.ts";
import { renewalMargin, type RenewalTiming, renewDelay } from "../../../src/custody/mod.ts";

/** Offsets (ms from t0) of the renewer calls of one kind. */
const offsets = (renewers: FakeRenewers, t0: number, kind = "lease") =>
  renewers.calls.filter((c) => c.kind === kind).map((c) => c.at - t0);

Deno.test("renewDelay: the design's cadence up to a 15 s TTL, a third of longer TTLs left", () => {
  const now = 1_000_000;
  const custodyExpiresAt = now + 600_000;
  const fresh = (ttlMs: number, more: Partial<RenewalTiming> = {}) =>
    renewDelay({ now, expiresAt: now + ttlMs, ttlMs, custodyExpiresAt, ...more });
  assert.equal(fresh(15_000), 5_000, "the default TTL: min(10 s, TTL/3), as designed");
  assert.equal(fresh(3_000), 1_000);
  assert.equal(fresh(3_001), 1_000, "floors");
  assert.equal(fresh(30_000), 20_000, "10 s of margin, not a renewal every 10 s");
  assert.equal(fresh(60_000), 40_000, "a third of the TTL left");
  assert.equal(fresh(120_000), 80_000);
  assert.equal(fresh(30_000, { renewAfterMs: 4_000 }), 4_000, "the daemon's launcher cadence");
  assert.equal(fresh(30_000, { custodyExpiresAt: now + 2_500 }), 2_500, "not past custody");
  assert.equal(renewDelay({ now, expiresAt: now + 2, ttlMs: 15_000, custodyExpiresAt }), 1);
  assert.equal(renewDelay({ now, expiresAt: now - 5_000, ttlMs: 15_000, custodyExpiresAt }), 1);
  // After a failed attempt little is left: retry at a third of it, as designed.
  assert.equal(renewDelay({ now, expiresAt: now + 9_000, ttlMs: 40_000, custodyExpiresAt }), 3_000);
});

Deno.test("renewDelay: a slow daemon moves renewals earlier, up to half the TTL", () => {
  const now = 1_000_000;
  const custodyExpiresAt = now + 600_000;
  const at = (ttlMs: number, daemonDelayMs: number) =>
    renewDelay({ now, expiresAt: now + ttlMs, ttlMs, custodyExpiresAt, daemonDelayMs });
  assert.equal(at(40_000, 0), 26_666);
  assert.equal(at(40_000, 5_000), 26_666, "2 × 5 s + 1 s is within the third already left");
  assert.equal(at(40_000, 8_000), 23_000, "2 × 8 s + 1 s before expiry");
  assert.equal(at(40_000, 30_000), 20_000, "never earlier than half the TTL");
  assert.equal(at(15_000, 8_000), 5_000, "a short TTL keeps the design's cadence");
  assert.equal(renewalMargin(120_000, 25_000), 51_000);
  assert.equal(renewalMargin(120_000, 40_000), 60_000);
});

Deno.test("renewDelay never renews more often than the design's min(remaining/3, 10 s)", () => {
  const now = 0;
  for (const ttlMs of [1_000, 3_000, 9_000, 15_000, 40_000, 120_000]) {
    for (const remaining of [1, 500, 3_000, 9_000, 15_000, 40_000, 120_000]) {
      for (const daemonDelayMs of [0, 1_000, 10_000, 100_000]) {
        const delay = renewDelay({
          now,
          expiresAt: remaining,
          ttlMs,
          custodyExpiresAt: 3_600_000,
          daemonDelayMs,
        });
        const design = Math.max(1, Math.min(10_000, Math.floor(remaining / 3)));
        assert.ok(delay >= design, `${ttlMs}/${remaining}/${daemonDelayMs}: ${delay}`);
        assert.ok(delay <= Math.max(1, remaining), "before the expiry");
      }
    }
  }
});

for (const [ttl, every] of [[15_000, 5_000], [30_000, 20_000], [3_000, 1_000], [120_000, 80_000]]) {
  Deno.test(`a ${ttl / 1000} s lease TTL renews every ${every / 1000} s`, async () => {
    const { clock, renewers, custody, t0, events } = setup();
    renewers.leaseTtlMs = ttl;
    custody.holdLease({ leaseId: "L1", token: T, expiresAt: t0 + ttl });
    await clock.advance(every - 1);
    assert.equal(renewers.calls.length, 0);
    await clock.advance(1);
    assert.deepEqual(offsets(renewers, t0), [every]);
    await clock.advance(every * 3);
    assert.deepEqual(offsets(renewers, t0), [every, 2 * every, 3 * every, 4 * every]);
    assert.deepEqual(renewers.calls.map((c) => c.secrets), Array(4).fill([T]));
    assert.deepEqual(events.at(-1), {
      type: "renewed",
      kind: "lease",
      id: "L1",
      credentialCount: 1,
      expiresAt: t0 + 4 * every + ttl,
    });
    assert.equal(custody.heldLease("L1")?.expiresAt, t0 + 4 * every + ttl);
    await custody.close();
    assert.equal(clock.pending, 0);
  });
}

Deno.test("custody times renewals by the daemon's observed delay", async () => {
  let daemonDelayMs = 8_000;
  const { clock, renewers, custody, t0 } = setupCustody({ daemonDelayMs: () => daemonDelayMs });
  renewers.leaseTtlMs = 40_000;
  custody.holdLease({ leaseId: "L1", token: T, expiresAt: t0 + 40_000 });
  await clock.advance(22_999);
  assert.equal(renewers.calls.length, 0);
  await clock.advance(1);
  assert.deepEqual(offsets(renewers, t0), [23_000], "17 s before expiry, not 13.3 s");
  daemonDelayMs = 0; // prompt again: the next schedule is back to a third of the TTL
  await clock.advanceTo(t0 + 46_000 + 26_666);
  assert.deepEqual(offsets(renewers, t0), [23_000, 46_000, 72_666]);
  await custody.close();
});

Deno.test("an activation renews all its leases in one batch timed by the soonest expiry", async () => {
  const { clock, renewers, custody, t0 } = setup();
  custody.holdActivation("A1", [
    { leaseId: "L1", token: T + "1", expiresAt: t0 + 30_000, component: "web", endpoint: "http" },
    { leaseId: "L2", token: T + "2", expiresAt: t0 + 9_000, component: "db", endpoint: "pg" },
    {
      leaseId: "L3",
      token: T + "3",
      expiresAt: t0 + 21_000,
      component: "cache",
      endpoint: "default",
    },
  ]);
  await clock.advance(3_000); // soonest: 9 s TTL → 3 s
  assert.equal(renewers.calls.length, 1);
  assert.deepEqual(renewers.calls[0], { ...renewers.calls[0], kind: "activation", id: "A1" });
  assert.deepEqual(renewers.calls[0].secrets, [T + "1", T + "2", T + "3"]);
  // Every lease now expires 15 s after the renewal, so the cadence settles at 5 s.
  await clock.advance(10_000);
  assert.deepEqual(offsets(renewers, t0, "activation"), [3_000, 8_000, 13_000]);
  const held = custody.heldActivation("A1")!;
  assert.deepEqual(held.leases.map((l) => l.expiresAt), Array(3).fill(t0 + 28_000));
  assert.deepEqual(held.leases.map((l) => l.component), ["web", "db", "cache"]);
  assert.equal(held.credentialCount, 3);
  await custody.close();
});

Deno.test("launcher cadence is min(10 s, renewAfter, deadline/3)", async () => {
  const { clock, renewers, custody, t0 } = setup();
  holdLauncherO1(custody, t0);
  await clock.advance(30_000);
  assert.deepEqual(offsets(renewers, t0, "launcher"), [10_000, 20_000, 30_000]);
  assert.equal(custody.heldLauncher("O1")?.deadlineAt, t0 + 60_000);
  // The daemon may ask for a faster cadence; custody follows it.
  renewers.renewAfterMs = 4_000;
  await clock.advance(14_000);
  assert.deepEqual(offsets(renewers, t0, "launcher"), [10_000, 20_000, 30_000, 40_000, 44_000]);
  assert.equal(custody.heldLauncher("O1")?.renewAfterMilliseconds, 4_000);
  await custody.close();
});

Deno.test("a short launcher deadline renews at a third of it", async () => {
  const { clock, renewers, custody, t0 } = setup();
  holdLauncherO1(custody, t0, { deadlineAt: t0 + 6_000 });
  await clock.advance(2_000);
  assert.deepEqual(offsets(renewers, t0, "launcher"), [2_000]);
  await custody.close();
});
