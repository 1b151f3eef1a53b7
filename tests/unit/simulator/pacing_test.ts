/**
 * `--latency` and `--serial`: latency is added to every request that changes state (every
 * route's declaration walked), and serial mode answers one request at a time in arrival order,
 * latency included. Latency waits are a fake sleep here: no real time passes.
 */
import assert from "node:assert/strict";
import { allRoutes } from "../../../src/simulator/routes/mod.ts";
import { type Harness, harness } from "../../support/simulator_harness.ts";
import { Watched } from "../../support/watched.ts";

/** The POSTs the protocol's route index calls "safe" or "pure": they only read. */
const READ_ONLY_POSTS = new Set([
  "/v1/stacks/:stackId/status",
  "/v1/actions/stack-definition/validate",
  "/v1/stack-activations/:activationId/resolve",
  "/v1/stack-activations/:activationId/snapshot",
]);

/** A fake sleep: each wait is held until the test releases it; `until` waits on them. */
function heldSleep() {
  const waits: { ms: number; release: () => void }[] = [];
  const watched = new Watched();
  return {
    waits,
    sleep: (ms: number) =>
      new Promise<void>((release) => {
        waits.push({ ms, release });
        watched.changed();
      }),
    held: (count: number) => watched.when(() => waits.length === count),
  };
}

const ID = "142379f1-1b34-4e87-bc2a-fcaf87b4d70e";
const concrete = (path: string) => path.replace(":port", "18080").replace(/:[A-Za-z]+/g, ID);

Deno.test("every POST route declares whether it only reads, as the protocol says", () => {
  const posts = allRoutes.filter((r) => r.method === "POST");
  assert.ok(posts.length >= 43);
  const readOnly = posts.filter((r) => r.readOnly).map((r) => r.path);
  assert.deepEqual(new Set(readOnly), READ_ONLY_POSTS);
  assert.ok(allRoutes.every((r) => r.method === "POST" || r.readOnly === undefined));
});

Deno.test("--latency delays exactly the requests that change state, once each", async () => {
  const slept: number[] = [];
  const h = await harness({
    latencyMs: 1_000,
    sleep: (ms) => {
      slept.push(ms);
      return Promise.resolve();
    },
  });
  try {
    // The stop route last: it really stops the simulator.
    const routes = [...allRoutes].sort((a, b) =>
      Number(a.path === "/v1/server/stop") - Number(b.path === "/v1/server/stop")
    );
    for (const route of routes) {
      const before = slept.length;
      const path = concrete(route.path);
      if (route.method === "GET") await h.get(path);
      else await h.post(path, {});
      const changes = route.method === "POST" && !route.readOnly;
      assert.deepEqual(
        slept.slice(before),
        changes ? [1_000] : [],
        `${route.method} ${route.path}`,
      );
    }
  } finally {
    await h.close();
  }
});

/**
 * Sends a request and records when its answer came; returns once the simulator has it, with
 * the answer still to come (boxed, so awaiting `send` does not await the answer).
 */
async function send(h: Harness, order: string[], name: string, mutation: boolean) {
  const seen = h.sim.requests.length;
  const answered = (mutation
    ? h.post("/v1/config", { updates: { leaseTtlMilliseconds: 40_000 } }, {
      capabilities: ["administration-v1"],
    })
    : h.get("/v1/health")).then((reply) => {
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      order.push(name);
    });
  await h.sim.arrived(() => true, seen);
  return { answered };
}

Deno.test("--serial answers one request at a time in arrival order, latency included", async () => {
  const fake = heldSleep();
  const h = await harness({ latencyMs: 1_000, serial: true, sleep: fake.sleep });
  try {
    const order: string[] = [];
    const { answered: a } = await send(h, order, "change A", true);
    const { answered: b } = await send(h, order, "read B", false);
    const { answered: c } = await send(h, order, "change C", true);
    await fake.held(1);
    assert.deepEqual(h.sim.control.queue, { depth: 3, peak: 3, served: 0 });
    assert.deepEqual(order, [], "the read waits behind the change in service");
    fake.waits[0].release();
    await Promise.all([a, b]);
    await fake.held(2);
    assert.deepEqual(order, ["change A", "read B"], "C only now starts its latency");
    fake.waits[1].release();
    await c;
    assert.deepEqual(order, ["change A", "read B", "change C"]);
    assert.deepEqual(h.sim.control.queue, { depth: 0, peak: 3, served: 3 });
  } finally {
    await h.close();
  }
});

Deno.test("without --serial the latency of changes overlaps and reads are not held", async () => {
  const fake = heldSleep();
  const h = await harness({ latencyMs: 1_000, sleep: fake.sleep });
  try {
    const order: string[] = [];
    const { answered: a } = await send(h, order, "change A", true);
    const { answered: c } = await send(h, order, "change C", true);
    await fake.held(2);
    await (await send(h, order, "read B", false)).answered;
    assert.deepEqual(order, ["read B"]);
    fake.waits[1].release();
    await c;
    fake.waits[0].release();
    await a;
    assert.deepEqual(order, ["read B", "change C", "change A"]);
  } finally {
    await h.close();
  }
});

Deno.test("closing the simulator cuts queued latency short", async () => {
  const fake = heldSleep();
  const h = await harness({ latencyMs: 60_000, serial: true, sleep: fake.sleep });
  const order: string[] = [];
  const { answered: a } = await send(h, order, "change A", true);
  await fake.held(1);
  await h.close(); // would wait a minute if the latency held the shutdown
  await a;
  assert.deepEqual(order, ["change A"]);
});
