/**
 * The bounds on work: tool calls (in flight, waiting, refused as busy, held while stdout is
 * backed up, leaving the queue when cancelled) and daemon request slots.
 */
import assert from "node:assert/strict";
import { CallLimiter } from "../../../src/transport/call_limiter.ts";
import { Valve } from "../../../src/transport/valve.ts";
import { Slots } from "../../../src/daemon/slots.ts";
import { BridgeError } from "../../../src/shared/errors.ts";
import { nextStepFor } from "../../../src/shared/error_codes.ts";
import { tick } from "../../support/watched.ts";

function gate() {
  const { promise, resolve } = Promise.withResolvers<void>();
  return { promise, open: resolve };
}

Deno.test("calls beyond the in-flight bound wait in order; beyond the queue they are busy", async () => {
  const limiter = new CallLimiter({ maxInFlight: 2, maxWaiting: 2 });
  const release = gate();
  let peak = 0;
  const order: number[] = [];
  const task = (n: number) => async () => {
    peak = Math.max(peak, limiter.running);
    await release.promise;
    order.push(n);
    return n;
  };
  const accepted = [1, 2, 3, 4].map((n) => limiter.run(task(n)));
  await tick();
  assert.equal(limiter.running, 2);
  assert.equal(limiter.waiting, 2);
  await assert.rejects(limiter.run(task(5)), (error) => {
    assert.ok(error instanceof BridgeError);
    assert.equal(error.code, "portreeve_bridge_busy");
    assert.equal(error.retryable, true);
    assert.match(error.message, /busy.*Nothing was sent/s);
    assert.match(nextStepFor(error.code, error.details), /earlier calls to finish, then retry/);
    return true;
  });
  release.open();
  assert.deepEqual(await Promise.all(accepted), [1, 2, 3, 4]);
  assert.deepEqual(order, [1, 2, 3, 4]);
  assert.equal(peak, 2);
  assert.equal(limiter.running, 0);
});

Deno.test("a closed output gate holds new calls until it opens", async () => {
  const output = new Valve();
  const limiter = new CallLimiter({ maxInFlight: 4, maxWaiting: 8, output });
  output.set(false);
  let started = 0;
  const calls = [1, 2, 3].map(() => limiter.run(() => Promise.resolve(++started)));
  await tick();
  assert.equal(started, 0, "nothing starts while stdout is backed up");
  assert.equal(limiter.waiting, 3);
  output.set(true);
  await Promise.all(calls);
  assert.equal(started, 3);
});

Deno.test("a cancelled waiting call leaves the queue and never runs", async () => {
  const limiter = new CallLimiter({ maxInFlight: 1, maxWaiting: 1 });
  const release = gate();
  const first = limiter.run(() => release.promise);
  const controller = new AbortController();
  let ran = false;
  const second = limiter.run(() => Promise.resolve(ran = true), controller.signal);
  await tick();
  assert.equal(limiter.waiting, 1);
  controller.abort(new Error("cancelled"));
  await assert.rejects(second, /cancelled/);
  assert.equal(limiter.waiting, 0);
  release.open();
  await first;
  assert.equal(ran, false);
});

Deno.test("daemon request slots cap concurrency and let aborted waiters go", async () => {
  const slots = new Slots(2);
  const a = await slots.acquire();
  const b = await slots.acquire();
  assert.equal(slots.inUse, 2);
  const controller = new AbortController();
  const aborted = slots.acquire(controller.signal);
  const waiting = slots.acquire();
  controller.abort(new Error("gone"));
  await assert.rejects(aborted, /gone/);
  a();
  a(); // releasing twice frees one slot only
  const c = await waiting;
  assert.equal(slots.inUse, 2);
  b();
  c();
  assert.equal(slots.inUse, 0);
});
