/**
 * Daemon request slots: the total cap holds, new work leaves the reserved slots to custody,
 * and a freed slot goes to waiting custody first, soonest-due first, then to work in order.
 */
import assert from "node:assert/strict";
import { type Lane, Slots } from "../../../src/daemon/slots.ts";
import { tick } from "../../support/watched.ts";

const custody = (dueAt: number): Lane => ({ kind: "custody", dueAt });

/** Acquires and records the order in which grants arrive. */
function recorder(slots: Slots) {
  const granted: string[] = [];
  const releases = new Map<string, () => void>();
  return {
    granted,
    take(name: string, lane?: Lane, signal?: AbortSignal) {
      const pending = slots.acquire(signal, lane).then((release) => {
        granted.push(name);
        releases.set(name, release);
      });
      return pending;
    },
    release(name: string) {
      releases.get(name)!();
    },
  };
}

Deno.test("custody never waits behind new work: work leaves the reserved slots free", async () => {
  const slots = new Slots(4, 2);
  const r = recorder(slots);
  await r.take("w1");
  await r.take("w2");
  void r.take("w3"); // work may not use the two reserved slots
  await tick();
  assert.deepEqual(r.granted, ["w1", "w2"]);
  assert.deepEqual(slots.waiting, { work: 1, custody: 0 });
  await r.take("renew", custody(1_000));
  await r.take("settle", custody(2_000));
  assert.deepEqual(r.granted, ["w1", "w2", "renew", "settle"]);
  assert.equal(slots.inUse, 4, "the total cap holds");
  r.release("renew");
  await tick();
  assert.deepEqual(r.granted.at(-1), "settle", "a reserved slot freed stays reserved");
  assert.equal(slots.inUse, 3);
  r.release("w1");
  await tick();
  assert.deepEqual(r.granted.at(-1), "w3");
});

Deno.test("waiting custody goes soonest-due first, ties in arrival order, before any work", async () => {
  const slots = new Slots(2, 1);
  const r = recorder(slots);
  await r.take("w0");
  await r.take("c0", custody(0));
  void r.take("w1");
  void r.take("c300", custody(300));
  void r.take("c100", custody(100));
  void r.take("w2");
  void r.take("c200a", custody(200));
  void r.take("c200b", custody(200));
  await tick();
  assert.deepEqual(slots.waiting, { work: 2, custody: 4 });
  for (const name of ["c0", "c100", "c200a", "c200b", "c300", "w0"]) {
    r.release(name);
    await tick();
  }
  assert.deepEqual(r.granted, [
    "w0",
    "c0",
    "c100",
    "c200a",
    "c200b",
    "c300",
    "w1", // the work slot freed by w0; custody had nobody left waiting
  ]);
  r.release("w1");
  await tick();
  assert.deepEqual(r.granted.at(-1), "w2");
  assert.deepEqual(slots.waiting, { work: 0, custody: 0 });
});

Deno.test("an arrival never overtakes a waiter of its own lane; aborted waiters leave", async () => {
  const slots = new Slots(1);
  const r = recorder(slots);
  await r.take("a", custody(50));
  const controller = new AbortController();
  const gone = r.take("gone", custody(10), controller.signal);
  void r.take("b", custody(20));
  controller.abort(new Error("cancelled"));
  await assert.rejects(gone, /cancelled/);
  r.release("a");
  await tick();
  assert.deepEqual(r.granted, ["a", "b"]);
  assert.equal(slots.inUse, 1);
  r.release("b");
  r.release("b"); // releasing twice frees one slot only
  assert.equal(slots.inUse, 0);
  assert.throws(() => new Slots(2, 2), RangeError, "work must keep at least one slot");
});
