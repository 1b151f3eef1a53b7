/**
 * A change its caller stopped waiting for, through the real client against a daemon that
 * serves one request at a time and finishes each change when the test says so: the request
 * runs on to its answer, what the answer grants is given back at once (a lease abandoned as
 * client-cancelled), a repeat of the same change takes the answer over instead of sending it
 * again, and the caller learns exactly what is known. The call's bound is the test's timer.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { daemonRig, failure } from "../../support/daemon_rig.ts";
import { acquireRoute } from "../../../src/catalogue/tools/leases.ts";
import { post } from "../../../src/daemon/routes.ts";
import { coordinates } from "../../../src/daemon/effects.ts";
import type { LateEvent } from "../../../src/daemon/late.ts";
import { linkedSignal } from "../../../src/shared/signals.ts";
import { ManualTimers } from "../../support/manual_timers.ts";
import { Watched } from "../../support/watched.ts";

const CONFIG_CHANGE = post(
  "/v1/config",
  z.looseObject({}),
  coordinates("a stand-in change with nothing to give back"),
);

async function rig() {
  const events: LateEvent[] = [];
  const told = new Watched();
  const timers = new ManualTimers();
  const onLateAnswer = (event: LateEvent) => {
    events.push(event);
    told.changed();
  };
  const t = await daemonRig({ onLateAnswer, timers }, { paced: true });
  await t.client.compatibility();
  const acquire = (signal?: AbortSignal) =>
    t.client.request(acquireRoute, {
      body: {
        claim: {
          project: "late",
          workspaceRoot: t.socketPath,
          component: "api",
          endpoint: "http",
          transport: "tcp",
        },
        allocation: { mode: "sticky" },
      },
      capabilities: ["two-phase-allocation-v1"],
      signal,
    });
  const sent = (path: string) => t.sim.requests.filter((r) => r.path.endsWith(path));
  /** Lets the daemon finish the change it holds. */
  const finish = async () => {
    await t.holding(1);
    t.waits.shift()!();
  };
  /** The first event of `outcome`, once reported. */
  const reported = async (outcome: LateEvent["outcome"]) => {
    const find = () => events.find((event) => event.outcome === outcome);
    await told.when(() => find() !== undefined);
    return find()!;
  };
  return { ...t, events, timers, acquire, sent, finish, reported };
}

Deno.test("a lease granted after the host cancelled is abandoned as client-cancelled at once", async () => {
  const t = await rig();
  try {
    const cancel = new AbortController();
    const pending = failure(t.acquire(cancel.signal));
    await t.holding(1); // the daemon has the acquire
    cancel.abort();
    const error = await pending;
    assert.equal(error.code, "portreeve_cancelled");
    assert.equal(error.details.lateAnswer, "given back");
    assert.equal(error.details.outcome, undefined, "not an unknown outcome: it is given back");
    assert.match(error.message, /gives back what it granted \(the lease is abandoned/);
    assert.equal(t.client.lateAnswersPending, 1);

    await t.finish(); // the daemon grants it now
    const abandon = await t.sim.arrived((r) => r.path.endsWith("/abandon"));
    const body = abandon.body as { reason: string; leaseToken: string };
    assert.equal(body.reason, "client-cancelled");
    const leaseId = abandon.path.split("/")[3];
    await t.finish(); // and takes the abandon
    const event = await t.reported("given-back");
    assert.match(event.what!, new RegExp(`lease ${leaseId} .*abandoned as client-cancelled`));
    assert.ok(!JSON.stringify(t.events).includes(body.leaseToken), "no token in what is logged");
    assert.equal(t.sim.control.state.leases.get(leaseId)?.state, "abandoned");
    assert.equal(t.sent("/v1/leases/acquire").length, 1, "the acquire was sent once");
    assert.equal(t.client.lateAnswersPending, 0);
  } finally {
    await t.done();
  }
});

Deno.test("the call's bound ends the wait the same way: a timeout saying the lease is given back", async () => {
  const t = await rig();
  try {
    const bound = linkedSignal([], 600_000, t.timers);
    const pending = failure(t.acquire(bound.signal));
    await t.holding(1);
    (await t.timers.next(600_000)).fire();
    const error = await pending;
    assert.equal(error.code, "portreeve_unavailable");
    assert.equal(error.retryable, true);
    assert.equal(error.details.reason, "timeout");
    assert.equal(error.details.waitedMs, 600_000);
    assert.equal(error.details.lateAnswer, "given back");
    assert.match(error.message, /did not answer within 600 s/);
    assert.match(error.message, /waits for that answer instead of sending the change again/);
    await t.finish();
    await t.finish(); // the abandon
    await t.reported("given-back");
    assert.equal(t.sent("/abandon").length, 1);
  } finally {
    await t.done();
  }
});

Deno.test("a repeat of the same change takes over the answer on its way: nothing sent twice, nothing given back", async () => {
  const t = await rig();
  try {
    const cancel = new AbortController();
    const first = failure(t.acquire(cancel.signal));
    await t.holding(1);
    cancel.abort();
    await first;
    const repeat = t.acquire(); // the agent calls again, same arguments
    // The daemon finishes whatever it holds, one change at a time, until the repeat answers.
    let answered = false;
    const lease = repeat.finally(() => answered = true);
    while (!answered) {
      await Promise.race([lease, t.holding(1)]);
      t.waits.shift()?.();
    }
    await lease;
    const { leaseId } = await lease;
    assert.equal(typeof leaseId, "string");
    assert.equal(t.sent("/v1/leases/acquire").length, 1, "the repeat sent nothing");
    assert.equal(t.sent("/abandon").length, 0, "taken, so kept by the repeat");
    assert.deepEqual(t.events.map((event) => event.outcome), ["taken"]);
    assert.equal(t.sim.control.state.leases.get(leaseId)?.state, "pending");
  } finally {
    await t.done();
  }
});

Deno.test("a late answer with nothing to give back is logged; its caller was told the outcome is unknown", async () => {
  const t = await rig();
  try {
    const told: unknown[] = [];
    const cancel = new AbortController();
    const pending = failure(
      t.client.request(CONFIG_CHANGE, {
        body: { updates: { leaseTtlMilliseconds: 30_000 } },
        signal: cancel.signal,
        whenLate: (reply) => told.push(reply),
      }),
    );
    await t.holding(1);
    cancel.abort();
    const error = await pending;
    assert.equal(error.details.outcome, "unknown");
    assert.equal(error.details.lateAnswer, "logged");
    await t.finish();
    await t.reported("answered");
    assert.equal(told.length, 1, "the caller's follow-up heard the answer");
  } finally {
    await t.done();
  }
});

Deno.test("a change cancelled before it was sent is not sent, and leaves nothing pending", async () => {
  const t = await rig();
  try {
    const cancel = new AbortController();
    cancel.abort();
    const error = await failure(t.acquire(cancel.signal));
    assert.equal(error.code, "portreeve_cancelled");
    assert.equal(error.details.lateAnswer, undefined, "nothing was sent");
    assert.equal(t.sent("/v1/leases/acquire").length, 0);
    assert.equal(t.client.lateAnswersPending, 0);
  } finally {
    await t.done();
  }
});
