/**
 * The real client against a simulator that serves one request at a time: a renewal overtakes
 * the bridge's own queued work, and a slow answer does not make the next call probe health.
 */
import assert from "node:assert/strict";
import { daemonRig } from "../../support/daemon_rig.ts";
import { z } from "zod";
import { get, post } from "../../../src/daemon/routes.ts";
import { coordinates } from "../../../src/daemon/effects.ts";
import { ManualTimers } from "../../support/manual_timers.ts";
import { linkedSignal } from "../../../src/shared/signals.ts";

const ANY = z.looseObject({});
const ACQUIRE = post("/v1/leases/acquire", ANY, coordinates("a stand-in acquire"));
const RENEW = post("/v1/leases/{leaseId}/renew", ANY, coordinates("a stand-in renewal"));
const CONFIG = get("/v1/config", ANY);
const CONFIG_CHANGE = post("/v1/config", ANY, coordinates("a stand-in change"));
const TOKEN = "t".repeat(43);
const LEASE = "5a540b20-40d3-4f2a-b95c-6f8b5364239d";

Deno.test("a renewal reaches the daemon before the bridge's own queued work", async () => {
  // 3 slots, 2 of them kept for custody: new work goes one at a time.
  const rig = await daemonRig({ maxConcurrent: 3 }, { paced: true });
  const { sim, client, waits } = rig;
  try {
    await client.compatibility();
    const acquire = () => client.request(ACQUIRE, { body: { claim: {} } }).catch((e: unknown) => e);
    const work = [acquire(), acquire(), acquire()];
    await rig.holding(1); // the first is in the daemon's hands
    const renewal = client.request(RENEW, {
      params: { leaseId: LEASE },
      body: { leaseToken: TOKEN },
      custodyDueAt: Date.now() + 5_000, // timing-ok: orders it among custody traffic, no more
    }).catch((e: unknown) => e);
    await sim.arrived((request) => request.path.endsWith("/renew"));
    assert.deepEqual(sim.requests.map((r) => r.path), [
      "/v1/health",
      "/v1/leases/acquire",
      `/v1/leases/${LEASE}/renew`, // ahead of the two acquires still waiting in the bridge
    ]);
    let settled = false;
    const all = Promise.all([...work, renewal]).finally(() => settled = true);
    while (!settled) {
      await Promise.race([all, rig.holding(1)]);
      waits.shift()?.(); // the daemon finishes one change at a time
    }
    for (const answer of await all) {
      assert.ok(!(answer instanceof Error) || !/did not answer/.test(answer.message));
    }
    assert.equal(sim.requests.length, 5);
  } finally {
    await rig.done();
  }
});

Deno.test("a slow answer keeps the compatibility verdict: no health probe queued behind it", async () => {
  const timers = new ManualTimers();
  const rig = await daemonRig({ timers });
  const { sim, client } = rig;
  try {
    await client.request(CONFIG);
    sim.control.setFault("hang");
    const from = sim.requests.length;
    const bound = linkedSignal([], 100, timers);
    const slow = assert.rejects(client.request(CONFIG, { signal: bound.signal }), /did not answer/);
    await sim.arrived((request) => request.path === "/v1/config", from);
    (await timers.next(100)).fire(); // the call's bound passes while the daemon holds it
    await slow;
    sim.control.setFault("none");
    await client.request(CONFIG);
    const probes = sim.requests.filter((r) => r.path === "/v1/health").length;
    assert.equal(probes, 1, "still the first verdict");
  } finally {
    await rig.done();
  }
});

/**
 * Connected is present: a new bridge's first call, whose health probe waits behind another
 * agent's change on a daemon that serves one request at a time, is slow, not gone. Only the
 * connect bound (50 ms here) is short, and it is over once connected; the probe then waits
 * with no deadline of the client's, and the read answers with data once the change is done.
 */
Deno.test("a call's compatibility probe waits behind a busy daemon's queue as the call would", async () => {
  const rig = await daemonRig({}, { paced: true });
  const { client: busy, sim, waits } = rig;
  const timers = new ManualTimers();
  const fresh = rig.another({ connectMs: 50, timers });
  try {
    await busy.compatibility();
    const change = busy.request(CONFIG_CHANGE, { body: { updates: {} } }).catch((e: unknown) => e);
    await rig.holding(1); // the daemon is busy with it
    const from = sim.requests.length;
    const read = fresh.request(CONFIG);
    await sim.arrived((request) => request.path === "/v1/health", from);
    assert.deepEqual(timers.pending, [], "connected: no bound left on the probe's answer");
    waits.shift()!();
    assert.equal(typeof (await read).leaseTtlMilliseconds, "number");
    await change;
  } finally {
    await rig.done();
  }
});
