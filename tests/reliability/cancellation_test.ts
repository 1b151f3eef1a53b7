/**
 * Cancellation. `notifications/cancelled` for a change the daemon already has ends the call but
 * not the change: the daemon acts on it all the same, so the bridge keeps waiting for its answer
 * and gives back what it granted (a lease abandoned as client-cancelled); a repeat of the same
 * call while the answer is on its way takes it over. The bridge never re-sends it, no frame is
 * ever written for the cancelled id (not even when the daemon's answer arrives late), and the
 * process keeps serving. A cancelled read is aborted.
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
  type ToolResult,
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

Deno.test("a cancelled change is given back when the daemon answers it; a repeat takes it over", async (t) => {
  // The simulator holds every change while `holding`, and finishes it when released.
  let holding = false;
  const held: (() => void)[] = [];
  const release = () => held.splice(0).forEach((finish) => finish());
  const env = await withSimulator({
    latencyMs: 1,
    sleep: () => holding ? new Promise<void>((finish) => held.push(finish)) : Promise.resolve(),
  });
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-rel-ws-" }));
  const peer = spawnPeer({ socketPath: env.socketPath });
  const { sim } = env;
  const acquires = () => sim.requests.filter((r) => r.path === "/v1/leases/acquire").length;
  const abandons = () => sim.requests.filter((r) => r.path.endsWith("/abandon"));
  const claim = { project: "cancel", workspaceRoot: workspace, component: "api" };
  const acquire = () =>
    peer.post("tools/call", { name: "portreeve_lease_acquire", arguments: { claim } });
  try {
    await peer.initialize();
    assert.equal(envelopeOf(await peer.tool("portreeve_settings_get")).ok, true);

    await t.step(
      "lease_acquire cancelled while the daemon has it: the lease is given back",
      async () => {
        holding = true;
        const id = await acquire();
        assert.ok(
          await until(() => acquires() === 1 && held.length === 1, 5_000),
          "the daemon has it",
        );
        await cancel(peer, id);
        await stillServing(peer);
        holding = false;
        release(); // the daemon grants the lease now, to nobody
        assert.ok(await until(() => abandons().length === 1, 5_000), "given back at once");
        const abandon = abandons()[0];
        assert.equal((abandon.body as { reason: string }).reason, "client-cancelled");
        const leaseId = abandon.path.split("/")[3];
        assert.ok(
          await until(() => sim.control.state.leases.get(leaseId)?.state === "abandoned", 5_000),
        );
        await sleep(1_000);
        assert.equal(peer.byId.get(idKey(id)), undefined, "no frame for the cancelled id");
        assert.equal(acquires(), 1, "the cancelled change was never re-sent");
      },
    );

    await t.step(
      "an identical call while the first is still with the daemon takes its answer",
      async () => {
        holding = true;
        const first = await acquire();
        assert.ok(await until(() => acquires() === 2 && held.length === 1, 5_000));
        await cancel(peer, first);
        const repeat = await acquire();
        // The bridge reads its frames in order: once the ping after them is answered, it has
        // taken the cancel and the repeat. Released sooner, the daemon's answer could reach
        // the bridge before the cancel did, and the first call would rightly be answered.
        await peer.response(await peer.post("ping"), 5_000);
        holding = false;
        release();
        const again = envelopeOf((await peer.response(repeat, 30_000)).result as ToolResult);
        assert.equal(again.ok, true, JSON.stringify(again.error));
        assert.equal(acquires(), 2, "the repeat sent nothing: it took the first one's answer");
        assert.equal(abandons().length, 1, "nothing more given back: the repeat holds it");
        assert.equal(peer.byId.get(idKey(first)), undefined, "no frame for the cancelled id");
      },
    );
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
    holding = false;
    release();
    await peer.closeStdin();
    await peer.exited();
    await env.cleanup();
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("a cancelled change stays on the wire; its late answer is given back and never surfaces", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-rel-fake-" });
  const socketPath = `${dir}/portreeve.sock`;
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-rel-ws-" }));
  const LATE_TOKEN = "late-secret-token-that-must-never-surface";
  let lateAnswers = 0;
  // The daemon answers only once the bridge has taken the cancel: late by construction.
  let cancelTaken!: () => void;
  const taken = new Promise<void>((resolve) => cancelTaken = resolve);
  const json = (data: unknown) =>
    new Response(envelope(data), { headers: { "content-type": "application/json" } });
  const fake = await startFakeDaemon(socketPath, async (request, record) => {
    const state = watchAbort(request, record);
    if (record.path === "/v1/leases/acquire") {
      // The daemon finishes its work after the caller gave up, and answers anyway.
      await taken;
      lateAnswers++;
      state.answered = true;
      return json({
        claimId: crypto.randomUUID(),
        leaseId: crypto.randomUUID(),
        port: 41234,
        reusedAssignment: false,
        leaseToken: LATE_TOKEN,
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      });
    }
    state.answered = true;
    if (record.path.endsWith("/abandon")) return json({ at: new Date().toISOString() });
    return json({});
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
    await cancel(peer, id);
    // Frames are read in order: the ping's answer means the cancel was taken.
    await peer.response(await peer.post("ping"), 5_000);
    cancelTaken();
    assert.ok(await until(() => lateAnswers === 1, 5_000), "the fake daemon answered late");
    const abandoned = () => fake.requests.find((r) => r.path.endsWith("/abandon"));
    assert.ok(await until(() => abandoned() !== undefined, 5_000), "the lease was given back");
    const acquire = fake.requests.find((r) => r.path === "/v1/leases/acquire")!;
    assert.equal(acquire.aborted, false, "the bridge kept the change's request open");
    const body = abandoned()!.body as { leaseToken: string; reason: string };
    assert.equal(body.reason, "client-cancelled");
    assert.equal(body.leaseToken, LATE_TOKEN, "the token went back to the daemon, and only there");
    await stillServing(peer);
    await sleep(300);
    assert.equal(peer.byId.get(idKey(id)), undefined, "no frame for the cancelled id");
    assert.equal(fake.requests.filter((r) => r.path === "/v1/leases/acquire").length, 1);
    await peer.closeStdin();
    assert.equal((await peer.exited()).code, 0);
    assert.match(
      peer.stderrText(),
      /"route":"POST \/v1\/leases\/acquire","outcome":"given-back","what":"lease [^"]+ abandoned/,
      "the give-back is logged, by id",
    );
    assert.ok(!peer.stdoutText().includes("late-secret"), "the late token never reached stdout");
    assert.ok(!peer.stderrText().includes("late-secret"), "nor stderr");
    assert.deepEqual(peer.violations, []);
    assertNoBridgeBug(peer);
  } finally {
    cancelTaken(); // a failed run must not leave the fake daemon waiting
    await peer.closeStdin();
    await peer.exited();
    await fake.close();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(workspace, { recursive: true });
  }
});
