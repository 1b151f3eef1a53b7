/**
 * The real client against a simulator that serves one request at a time: a renewal overtakes
 * the bridge's own queued work, and a slow answer does not make the next call probe health.
 */
import assert from "node:assert/strict";
import { daemonRig } from "../../support/daemon_rig.ts";
import { z } from "zod";
import { get, post } from "../../../src/daemon/routes.ts";
import { coordinates } from "../../../src/daemon/effects.ts";

const ANY = z.looseObject({});
const ACQUIRE = post("/v1/leases/acquire", ANY, coordinates("a stand-in acquire"));
const RENEW = post("/v1/leases/{leaseId}/renew", ANY, coordinates("a stand-in renewal"));
const CONFIG = get("/v1/config", ANY);
const CONFIG_CHANGE = post("/v1/config", ANY, coordinates("a stand-in change"));
const TOKEN = "t".repeat(43);
const LEASE = "5a540b20-40d3-4f2a-b95c-6f8b5364239d";

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setTimeout(r, 2));
  assert.ok(check(), "condition not reached");
}

Deno.test("a renewal reaches the daemon before the bridge's own queued work", async () => {
  // 3 slots, 2 of them kept for custody: new work goes one at a time.
  const rig = await daemonRig({ maxConcurrent: 3 }, { paced: true });
  const { sim, client, waits } = rig;
  try {
    await client.compatibility();
    const acquire = () => client.request(ACQUIRE, { body: { claim: {} } }).catch((e: unknown) => e);
    const work = [acquire(), acquire(), acquire()];
    await until(() => waits.length === 1); // the first is in the daemon's hands
    const renewal = client.request(RENEW, {
      params: { leaseId: LEASE },
      body: { leaseToken: TOKEN },
      custodyDueAt: Date.now() + 5_000,
    }).catch((e: unknown) => e);
    await until(() => sim.requests.length === 3);
    assert.deepEqual(sim.requests.map((r) => r.path), [
      "/v1/health",
      "/v1/leases/acquire",
      `/v1/leases/${LEASE}/renew`, // ahead of the two acquires still waiting in the bridge
    ]);
    let settled = false;
    const all = Promise.all([...work, renewal]).finally(() => settled = true);
    while (!settled) {
      waits.shift()?.(); // the daemon finishes one change at a time
      await new Promise((r) => setTimeout(r, 2));
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
  const rig = await daemonRig({ timeouts: { readMs: 100 } });
  const { sim, client } = rig;
  try {
    await client.request(CONFIG);
    sim.control.setFault("hang");
    await assert.rejects(client.request(CONFIG), /did not answer/);
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
  const { client: busy, waits } = rig;
  const fresh = rig.another({ timeouts: { probeMs: 50 } });
  try {
    await busy.compatibility();
    const change = busy.request(CONFIG_CHANGE, { body: { updates: {} } }).catch((e: unknown) => e);
    await until(() => waits.length === 1); // the daemon is busy with it
    const read = fresh.request(CONFIG);
    await new Promise((r) => setTimeout(r, 200)); // far past the 50 ms probe bound
    waits.shift()!();
    assert.equal(typeof (await read).leaseTtlMilliseconds, "number");
    await change;
  } finally {
    await rig.done();
  }
});
