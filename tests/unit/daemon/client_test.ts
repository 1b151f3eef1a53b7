/** The daemon client against the simulator on a real Unix socket. */
import assert from "node:assert/strict";
import { daemonRig, failure } from "../../support/daemon_rig.ts";
import { startSimulator } from "../../../src/simulator/mod.ts";
import { z } from "zod";
import { get } from "../../../src/daemon/routes.ts";
import { acquireRoute } from "../../../src/catalogue/tools/leases.ts";
import { ManualTimers } from "../../support/manual_timers.ts";
import { linkedSignal } from "../../../src/shared/signals.ts";

/** The client checks every reply against the schema its route declares (loose here). */
const CONFIG = get("/v1/config", z.looseObject({}));

function setup(maxResponseBytes?: number) {
  return daemonRig({ label: "unit", maxResponseBytes });
}

Deno.test("the compatibility verdict is cached: N calls cost one health probe", async () => {
  const t = await setup();
  try {
    for (let i = 0; i < 5; i++) await t.client.request(CONFIG);
    const health = t.sim.requests.filter((r) => r.path === "/v1/health").length;
    assert.equal(health, 1);
    assert.equal(t.sim.requests.filter((r) => r.path === "/v1/config").length, 5);
  } finally {
    await t.done();
  }
});

Deno.test("POSTs carry the client block, origin and a request id", async () => {
  const t = await setup();
  try {
    // The answer does not matter here, only what was sent.
    await t.client.request(acquireRoute, {
      body: acquireBody(t.socketPath, "api"),
      capabilities: ["two-phase-allocation-v1"],
    }).catch(() => {});
    const post = t.sim.requests.find((r) => r.method === "POST")!;
    const client = (post.body as { client: Record<string, unknown> }).client;
    assert.deepEqual(client.protocol, { minimum: 1, maximum: 1 });
    assert.deepEqual(client.requiredCapabilities, ["two-phase-allocation-v1"]);
    assert.deepEqual(client.origin, { kind: "mcp", runId: t.client.runId, label: "unit" });
    assert.match(post.headers["x-portreeve-request-id"], /^[0-9a-f-]{36}$/);
  } finally {
    await t.done();
  }
});

Deno.test("daemon down → portreeve_unavailable (retryable); back up → works without a new client", async () => {
  const t = await setup();
  try {
    await t.client.request(CONFIG);
    await t.sim.close();
    const down = await failure(t.client.request(CONFIG));
    assert.equal(down.code, "portreeve_unavailable");
    assert.equal(down.retryable, true);
    assert.equal(down.details.socketPath, t.socketPath);
    await t.sim.restart();
    assert.ok(await t.client.request(CONFIG));
  } finally {
    await t.done();
  }
});

/** A valid lease request for the simulator; `component` keeps each one distinct. */
function acquireBody(workspaceRoot: string, component: string) {
  return {
    claim: { project: "restart", workspaceRoot, component, endpoint: "http", transport: "tcp" },
    allocation: { mode: "ephemeral" },
  };
}

Deno.test("after a daemon restart, a mutation on the stale pooled connection still lands, once", async () => {
  const t = await setup();
  const workspace = await Deno.makeTempDir();
  try {
    // Each round leaves a pooled keep-alive connection to the old daemon behind; the write on
    // it fails with EPIPE, so the daemon never had the request and it may go again.
    for (let round = 0; round < 10; round++) {
      await t.client.request(CONFIG);
      await t.sim.restart();
      const healthBefore = t.sim.requests.filter((r) => r.path === "/v1/health").length;
      await t.client.request(acquireRoute, { body: acquireBody(workspace, `c${round}`) });
      const sent = t.sim.requests.filter((r) =>
        r.path === "/v1/leases/acquire" &&
        (r.body as { claim: { component: string } }).claim.component === `c${round}`
      );
      assert.equal(sent.length, 1, `round ${round}: the mutation reached the daemon once`);
      const healthAfter = t.sim.requests.filter((r) => r.path === "/v1/health").length;
      assert.ok(healthAfter - healthBefore <= 1, "at most one re-check of the new daemon");
    }
  } finally {
    await t.done();
    await Deno.remove(workspace, { recursive: true });
  }
});

/**
 * Deno.lstatSync, but every socket seen at a path reports the first one's times: a daemon that
 * stops and another that binds the same path within one tick of the file system's clock. Its
 * inode stays the system's own: the old one comes back only once nothing holds it.
 */
function sameTimes(): (path: string) => Deno.FileInfo {
  const first = new Map<string, Deno.FileInfo>();
  return (path) => {
    const info = Deno.lstatSync(path);
    if (!info.isSocket) return info;
    const seen = first.get(path) ?? info;
    first.set(path, seen);
    const { mtime, birthtime, ctime } = seen;
    return { ...info, mtime, birthtime, ctime };
  };
}

Deno.test("a daemon restarted as an incompatible version gets no mutation", async () => {
  // The new daemon's socket has the old one's times, and its inode too once the old daemon has
  // let go of it (ext4 hands a freed inode straight back): then only the verdict's witness
  // connection, which the old daemon closed when it stopped, tells them apart.
  const t = await daemonRig({ label: "unit", socket: { lstat: sameTimes() } });
  try {
    await t.client.request(CONFIG);
    await t.sim.close();
    // Same socket, newer daemon speaking another protocol; the bridge's verdict is now stale.
    const newer = await startSimulator({
      socketPath: t.socketPath,
      observeHost: false,
      protocol: { minimum: 2, maximum: 2 },
    });
    try {
      // A read first, so the pool holds a live connection to the new daemon: no failed write
      // can tell the change apart from the old daemon.
      await t.client.health().catch(() => undefined);
      const error = await failure(
        t.client.request(acquireRoute, { body: acquireBody(t.socketPath, "api") }),
      );
      assert.equal(error.code, "portreeve_incompatible", error.message);
      assert.equal(newer.requests.filter((r) => r.path === "/v1/leases/acquire").length, 0);
    } finally {
      await newer.close();
    }
  } finally {
    await t.done();
  }
});

Deno.test("a missing capability is portreeve_incompatible with the missing names", async () => {
  const t = await setup();
  try {
    const error = await failure(
      t.client.request(CONFIG, { capabilities: ["teleport-v9"] }),
    );
    assert.equal(error.code, "portreeve_incompatible");
    assert.deepEqual(error.details.missingCapabilities, ["teleport-v9"]);
  } finally {
    await t.done();
  }
});

Deno.test("faults: garbage → invalid_response, oversize → invalid_response, v2 → incompatible", async () => {
  // The default deadlines: a slow machine may take its time, the answer is what is judged.
  const t = await setup(1024 * 1024);
  try {
    await t.client.request(CONFIG);
    t.sim.control.setFault("non-json");
    assert.equal(
      (await failure(t.client.request(CONFIG))).code,
      "portreeve_invalid_response",
    );
    t.sim.control.setFault("oversize");
    assert.equal(
      (await failure(t.client.request(CONFIG))).code,
      "portreeve_invalid_response",
    );
    t.sim.control.setFault("wrong-envelope");
    assert.equal(
      (await failure(t.client.request(CONFIG))).code,
      "portreeve_incompatible",
    );
    t.sim.control.setFault("none");
    assert.ok(await t.client.request(CONFIG));
  } finally {
    t.sim.control.setFault("none");
    await t.done();
  }
});

/**
 * A daemon that hangs is waited for as long as the call waits: the client sets no deadline on
 * an answer, only a short one on connecting, cleared once connected. The call's own bound (here
 * a deadline signal, as serve's transport links one into every call) ends the wait, reported as
 * a timeout naming that bound, with no verdict cached and with one. The timers are the test's
 * own: which ones the client left running is read, no time is measured.
 */
Deno.test("hang: waited for until the call's bound, cold and with a cached verdict", async () => {
  const timers = new ManualTimers();
  const t = await daemonRig({ label: "unit", connectMs: 50, timers });
  const BOUND_MS = 600_000;
  const hung = async (path: string) => {
    const from = t.sim.requests.length;
    const bound = linkedSignal([], BOUND_MS, timers);
    const pending = failure(t.client.request(CONFIG, { signal: bound.signal }));
    await t.sim.arrived((request) => request.path === path, from);
    assert.deepEqual(
      timers.pending.map((timer) => timer.ms),
      [BOUND_MS],
      "connected, nothing but the call's own bound runs: no answer deadline of the client's",
    );
    (await timers.next(BOUND_MS)).fire();
    bound.release();
    return await pending;
  };
  try {
    t.sim.control.setFault("hang");
    const cold = await hung("/v1/health");
    assert.equal(cold.code, "portreeve_unavailable", cold.message);
    assert.equal(cold.details.reason, "timeout");
    assert.equal(cold.details.waitedMs, BOUND_MS, "the probe waited the call's bound");
    assert.match(cold.message, /did not answer within 600 s \(this bridge's bound/);

    t.sim.control.setFault("none");
    assert.ok(await t.client.request(CONFIG), "recovers, and caches a verdict");
    t.sim.control.setFault("hang");
    const warm = await hung("/v1/config");
    assert.equal(warm.code, "portreeve_unavailable", warm.message);
    assert.equal(warm.details.waitedMs, BOUND_MS, "the call's bound");
    assert.deepEqual(timers.pending, [], "every timer settled with its request");

    t.sim.control.setFault("none");
    assert.ok(await t.client.request(CONFIG), "works again without a new client");
  } finally {
    t.sim.control.setFault("none");
    await t.done();
  }
});

Deno.test("an incompatible daemon is refused before the call is sent", async () => {
  const rig = await daemonRig({}, { protocol: { minimum: 2, maximum: 3 } });
  const { sim, client } = rig;
  try {
    const error = await failure(client.request(CONFIG));
    assert.equal(error.code, "portreeve_incompatible");
    assert.equal(error.retryable, false);
    assert.equal(sim.requests.filter((r) => r.path === "/v1/config").length, 0);
  } finally {
    await rig.done();
  }
});

Deno.test("cancellation aborts the request and is reported as portreeve_cancelled", async () => {
  const t = await setup();
  try {
    await t.client.request(CONFIG);
    t.sim.control.setFault("hang");
    const controller = new AbortController();
    const from = t.sim.requests.length;
    const pending = failure(t.client.request(CONFIG, { signal: controller.signal }));
    // Cancelled while the daemon holds it, not before it was sent.
    await t.sim.arrived((request) => request.path === "/v1/config", from);
    controller.abort();
    assert.equal((await pending).code, "portreeve_cancelled");
  } finally {
    t.sim.control.setFault("none");
    await t.done();
  }
});
