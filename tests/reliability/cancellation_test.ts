/**
 * Cancellation. `notifications/cancelled` for an in-flight mutation aborts the
 * daemon request, the bridge never re-sends it, no frame is ever written for the cancelled
 * id (not even when the daemon's answer arrives late), and the process keeps serving.
 */
import assert from "node:assert/strict";
import { withSimulator } from "../e2e/harness.ts";
import { envelope, startFakeDaemon, watchAbort } from "./fake_daemon.ts";
import { RELIABILITY_BOUNDS, reportFigure } from "../support/reliability_figures.ts";
import {
  assertNoBridgeBug,
  envelopeOf,
  frame,
  idKey,
  type Peer,
  spawnPeer,
} from "../support/raw_peer.ts";
import { sleep, until } from "../support/timed.ts";

function cancel(peer: Peer, requestId: number): Promise<void> {
  return peer.send(frame({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId, reason: "the user pressed stop" },
  }));
}

async function stillServing(peer: Peer): Promise<void> {
  const pong = await peer.request("ping", undefined, 5_000);
  assert.ok("result" in pong, "ping answered");
  const list = await peer.request("tools/list", undefined, 5_000);
  assert.ok((list.result as { tools: unknown[] }).tools.length > 0, "tools/list answered");
}

Deno.test("cancelling an in-flight mutation aborts it once and for all; late answers are dropped", async (t) => {
  const env = await withSimulator();
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-rel-ws-" }));
  const peer = spawnPeer({ socketPath: env.socketPath });
  const { sim } = env;
  const acquires = () => sim.requests.filter((r) => r.path === "/v1/leases/acquire").length;
  const claim = { project: "cancel", workspaceRoot: workspace, component: "api" };
  try {
    await peer.initialize();
    assert.equal(envelopeOf(await peer.tool("portreeve_settings_get")).ok, true);

    await t.step("lease_acquire while the daemon hangs, then cancelled", async () => {
      sim.control.setFault("hang");
      const id = await peer.post("tools/call", {
        name: "portreeve_lease_acquire",
        arguments: { claim },
      });
      assert.ok(await until(() => acquires() === 1, 5_000), "the daemon received the acquire");
      await cancel(peer, id);
      await stillServing(peer);
      // The daemon recovers; its hung answer (and any retry) would surface now.
      sim.control.setFault("none");
      assert.equal(envelopeOf(await peer.tool("portreeve_settings_get")).ok, true);
      await sleep(1_500);
      assert.equal(peer.byId.get(idKey(id)), undefined, "no frame for the cancelled id");
      assert.equal(acquires(), 1, "the cancelled mutation was never re-sent");
    });

    await t.step("a later identical call relies on the daemon's idempotency", async () => {
      const again = envelopeOf(await peer.tool("portreeve_lease_acquire", { claim }));
      assert.equal(again.ok, true, JSON.stringify(again.error));
      assert.equal(acquires(), 2, "exactly one new acquire, sent by the new call");
    });

    await t.step(
      "cancelling a hung read, an unknown id and an answered id is harmless",
      async () => {
        sim.control.setFault("hang");
        const id = await peer.post("tools/call", { name: "portreeve_ports_list", arguments: {} });
        const before = sim.requests.length;
        assert.ok(
          await until(() => sim.requests.some((r) => r.path.startsWith("/v1/ports")), 5_000),
        );
        await cancel(peer, id);
        await cancel(peer, 987_654_321);
        sim.control.setFault("none");
        const answered = await peer.post("ping");
        await peer.response(answered);
        await cancel(peer, answered);
        await stillServing(peer);
        await sleep(500);
        assert.equal(peer.byId.get(idKey(id)), undefined, "no frame for the cancelled read");
        assert.equal(peer.byId.get(idKey(answered))?.length, 1, "one answer for the answered id");
        const resent = sim.requests.slice(before).filter((r) => r.path.startsWith("/v1/ports"));
        assert.equal(resent.length, 1, "the cancelled read was not re-sent");
      },
    );

    await t.step("stdin EOF after cancellations still exits promptly", async () => {
      const started = performance.now();
      await peer.closeStdin();
      const status = await peer.exited();
      const ms = performance.now() - started;
      assert.equal(status.code, 0);
      assert.ok(ms < RELIABILITY_BOUNDS.eofExitMs, `exited after ${Math.round(ms)} ms`);
      console.log(`exit after EOF with cancelled requests behind: ${Math.round(ms)} ms`);
      await reportFigure(
        "stdin closed behind cancelled requests",
        `exit 0 after ${Math.round(ms)} ms`,
      );
    });
    assert.deepEqual(peer.violations, []);
    assertNoBridgeBug(peer);
  } finally {
    await peer.closeStdin();
    await peer.exited();
    await env.cleanup();
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("the aborted daemon request is really aborted on the wire, and its late answer is dropped", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-rel-fake-" });
  const socketPath = `${dir}/portreeve.sock`;
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-rel-ws-" }));
  let lateAnswers = 0;
  const fake = await startFakeDaemon(socketPath, async (request, record) => {
    const state = watchAbort(request, record);
    if (record.path === "/v1/leases/acquire") {
      // The daemon finishes its work after the caller gave up, and answers anyway.
      await sleep(1_000);
      lateAnswers++;
      state.answered = true;
      return new Response(
        envelope({
          claimId: crypto.randomUUID(),
          leaseId: crypto.randomUUID(),
          port: 41234,
          reusedAssignment: false,
          leaseToken: "late-secret-token-that-must-never-surface",
          expiresAt: new Date(Date.now() + 60_000).toISOString(),
        }),
        { headers: { "content-type": "application/json" } },
      );
    }
    state.answered = true;
    return new Response(envelope({}), { headers: { "content-type": "application/json" } });
  });
  const peer = spawnPeer({ socketPath, serveArgs: ["--log-level", "debug"] });
  try {
    await peer.initialize();
    assert.equal(envelopeOf(await peer.tool("portreeve_health")).ok, true);
    const id = await peer.post("tools/call", {
      name: "portreeve_lease_acquire",
      arguments: { claim: { project: "late", workspaceRoot: workspace, component: "api" } },
    });
    assert.ok(await until(() => fake.requests.some((r) => r.path === "/v1/leases/acquire"), 5_000));
    await sleep(100);
    await cancel(peer, id);
    assert.ok(await until(() => lateAnswers === 1, 5_000), "the fake daemon answered late");
    const acquire = fake.requests.find((r) => r.path === "/v1/leases/acquire")!;
    assert.equal(acquire.aborted, true, "the bridge dropped the HTTP request when cancelled");
    await stillServing(peer);
    await sleep(300);
    assert.equal(peer.byId.get(idKey(id)), undefined, "no frame for the cancelled id");
    assert.equal(fake.requests.filter((r) => r.path === "/v1/leases/acquire").length, 1);
    await peer.closeStdin();
    assert.equal((await peer.exited()).code, 0);
    assert.ok(!peer.stdoutText().includes("late-secret"), "the late token never reached stdout");
    assert.ok(!peer.stderrText().includes("late-secret"), "nor stderr");
    assert.deepEqual(peer.violations, []);
    assertNoBridgeBug(peer);
  } finally {
    await peer.closeStdin();
    await peer.exited();
    await fake.close();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(workspace, { recursive: true });
  }
});
