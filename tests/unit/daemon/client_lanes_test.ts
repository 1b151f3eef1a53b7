/**
 * The real client against a simulator that serves one request at a time: a renewal overtakes
 * the bridge's own queued work, and a slow answer does not make the next call probe health.
 */
import assert from "node:assert/strict";
import { daemonRig } from "../../support/daemon_rig.ts";
import { z } from "zod";
import { get, post } from "../../../src/daemon/routes.ts";
import { coordinates } from "../../../src/daemon/effects.ts";
import { DEFAULT_TIMEOUTS } from "../../../src/daemon/client.ts";
import { ManualTimers } from "../../support/manual_timers.ts";

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
  const rig = await daemonRig({ timeouts: { readMs: 100 }, timers });
  const { sim, client } = rig;
  try {
    await client.request(CONFIG);
    sim.control.setFault("hang");
    const from = sim.requests.length;
    const slow = assert.rejects(client.request(CONFIG), /did not answer/);
    await sim.arrived((request) => request.path === "/v1/config", from);
    (await timers.next(100)).fire(); // the read deadline passes while the daemon holds it
    await slow;
    sim.control.setFault("none");
    await client.request(CONFIG);
    const probes = sim.requests.filter((r) => r.path === "/v1/health").length;
    assert.equal(probes, 1, "still the first verdict");
  } finally {
    await rig.done();
  }
});

Deno.test("a call's compatibility probe waits behind a busy daemon's queue as the call would", async () => {
  const rig = await daemonRig({}, { paced: true });
  const { client: busy, sim, waits } = rig;
  const timers = new ManualTimers();
  const fresh = rig.another({ timeouts: { probeMs: 50 }, timers });
  try {
    await busy.compatibility();
    const change = busy.request(CONFIG_CHANGE, { body: { updates: {} } }).catch((e: unknown) => e);
    await rig.holding(1); // the daemon is busy with it
    const from = sim.requests.length;
    const read = fresh.request(CONFIG);
    await sim.arrived((request) => request.path === "/v1/health", from);
    // The probe waits as long as the read would, not the 50 ms of a probe on its own.
    assert.deepEqual(timers.pending.map((timer) => timer.ms), [DEFAULT_TIMEOUTS.readMs]);
    waits.shift()!();
    assert.equal(typeof (await read).leaseTtlMilliseconds, "number");
    await change;
  } finally {
    await rig.done();
  }
});
