/** Custody's time: the fake clock tests run the schedule on, and the real clock's timers. */
import assert from "node:assert/strict";
import { T } from "../../support/custody_fixture.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { FakeRenewers } from "../../support/fake_renewers.ts";
import { type Clock, Custody, realClock } from "../../../src/custody/mod.ts";

Deno.test("FakeClock fires due timers in time order, ties in scheduling order", async () => {
  const clock = new FakeClock(0);
  const fired: string[] = [];
  clock.setTimeout(() => fired.push("b@20"), 20);
  clock.setTimeout(() => fired.push("a@10"), 10);
  clock.setTimeout(() => fired.push("c@20"), 20);
  const gone = clock.setTimeout(() => fired.push("cleared"), 5);
  clock.clearTimeout(gone);
  clock.setTimeout(() => {
    fired.push("d@15");
    clock.setTimeout(() => fired.push("e@18"), 3); // scheduled by a timer, still in range
  }, 15);
  assert.deepEqual(clock.dueTimes, [10, 15, 20, 20]);
  await clock.advance(19);
  assert.deepEqual(fired, ["a@10", "d@15", "e@18"]);
  assert.equal(clock.now(), 19);
  await clock.advance(1);
  assert.deepEqual(fired, ["a@10", "d@15", "e@18", "b@20", "c@20"]);
  assert.equal(clock.pending, 0);
});

Deno.test("FakeClock lets a renewal finish before the next timer fires", async () => {
  const clock = new FakeClock(0);
  const order: string[] = [];
  clock.setTimeout(async () => {
    await Promise.resolve();
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    order.push("renewal settled");
  }, 10);
  clock.setTimeout(() => order.push("next timer"), 10);
  await clock.advance(10);
  assert.deepEqual(order, ["renewal settled", "next timer"]);
});

/**
 * The real clock, watched: every live timer is recorded, and `nextFired` resolves (with the
 * timer's delay) when the next one runs. Custody's schedule is the fake clock's business; this
 * only shows that real timers drive it and that none is left behind, with no time measured.
 */
function watchedRealClock() {
  const live = new Set<number>();
  let fired = Promise.withResolvers<number>();
  const clock: Clock = {
    now: realClock.now,
    setTimeout(fn, ms) {
      const id: number = realClock.setTimeout(() => {
        live.delete(id);
        fn();
        const done = fired;
        fired = Promise.withResolvers<number>();
        done.resolve(ms);
      }, ms);
      live.add(id);
      return id;
    },
    clearTimeout(id) {
      live.delete(id);
      realClock.clearTimeout(id);
    },
  };
  return { clock, live, nextFired: () => fired.promise };
}

Deno.test("the real clock runs custody's expiry and leaves no timer behind", async () => {
  const { clock, live, nextFired } = watchedRealClock();
  const custody = new Custody({
    clock,
    renewers: new FakeRenewers(clock),
    defaultCustodyMs: 30,
    maximumCustodyMs: 60,
  });
  const expiresAt = Date.now() + 15_000; // timing-ok: custody's own 30 ms ends first, whenever
  custody.holdLease({ leaseId: "L1", token: T, expiresAt });
  // Held until a timer runs, however long this machine takes to get here (no await yet).
  assert.equal(custody.size, 1);
  assert.equal(live.size, 2, "an expiry and a renewal timer");
  // Custody ends 30 ms after the hold; whatever timers run before then, a few do it.
  let ran = 0;
  while (custody.size > 0 && ran < 10) {
    await nextFired();
    ran++;
  }
  assert.equal(custody.size, 0, `custody ended after ${ran} timers`);
  assert.equal(custody.heldLease("L1"), undefined);
  assert.equal(live.size, 0, "and no timer of it is left");
  await custody.close();
});

Deno.test("close() clears real timers (sanitizers would catch a leak)", async () => {
  const custody = new Custody({ clock: realClock, renewers: new FakeRenewers(realClock) });
  const now = Date.now(); // timing-ok: expiries nothing waits for (close() comes first)
  custody.holdLease({ leaseId: "L1", token: T, expiresAt: now + 15_000 });
  custody.holdLauncher({
    operationId: "O1",
    credential: T + "x",
    deadlineAt: now + 30_000,
    renewAfterMilliseconds: 10_000,
  });
  await custody.close();
  assert.equal(custody.size, 0);
});
