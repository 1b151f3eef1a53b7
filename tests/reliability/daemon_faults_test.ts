/**
 * Daemon faults. The real `serve` process, real stdio, real flags, against the
 * simulator's fault modes (hang, close mid-response, non-JSON, the daemon's own failure,
 * incompatible, wrong envelope, restart, absence) and a tiny fake daemon for bodies over the 4 MiB bound. Each fault must
 * yield its stable code within the call deadline, a mutation must never be re-sent, and the
 * bridge must recover on the next call once the daemon is healthy — without a bridge restart.
 * A daemon that hangs is waited for until the call's bound (`--daemon-wait-ms`), tested with the
 * test's own timers in tests/unit/daemon/client_test.ts (minutes of real waiting here would
 * prove nothing more).
 */
import assert from "node:assert/strict";
import { withSimulator } from "../e2e/harness.ts";
import { envelope, startFakeDaemon } from "./fake_daemon.ts";
import {
  assertNoBridgeBug,
  envelopeOf,
  type Peer,
  spawnPeer,
  type ToolResult,
} from "../support/raw_peer.ts";
import type { Fault, Simulator } from "../../src/simulator/mod.ts";

/**
 * Each fault here is answered as soon as the daemon answers, which is at once: this bounds "at
 * once" (the bridge itself sets no deadline shorter than a call's bound, minutes).
 */
const READ_DEADLINE_MS = 15_000;
/** A daemon that is down refuses the connection: answered at once (this bounds "at once"). */
const REFUSED_MS = 3_000;
/** Slack over a deadline for a loaded 2-core machine; the assertion is "it answers". */
const SLACK_MS = 5_000;

interface Timed {
  result: ToolResult;
  ms: number;
}

async function timed(peer: Peer, tool: string, args: Record<string, unknown> = {}): Promise<Timed> {
  const started = performance.now();
  const result = await peer.tool(tool, args, 60_000);
  return { result, ms: performance.now() - started };
}

function assertOk(r: ToolResult, what: string): Record<string, unknown> {
  const env = envelopeOf(r);
  assert.equal(env.ok, true, `${what}: ${JSON.stringify(env.error)}`);
  assert.notEqual(r.isError, true, what);
  return env.data!;
}

function assertFails(
  t: Timed,
  code: string,
  retryable: boolean,
  deadlineMs: number,
  what: string,
): NonNullable<ReturnType<typeof envelopeOf>["error"]> {
  const env = envelopeOf(t.result);
  assert.equal(t.result.isError, true, `${what} should fail`);
  assert.equal(env.ok, false, what);
  assert.equal(env.error?.code, code, `${what}: ${JSON.stringify(env.error)}`);
  assert.equal(env.error?.retryable, retryable, `${what} retryable`);
  assert.ok(env.error!.message.length > 20, `${what}: an actionable message`);
  assert.ok(
    t.ms < deadlineMs + SLACK_MS,
    `${what} answered after ${Math.round(t.ms)} ms (deadline ${deadlineMs} ms)`,
  );
  return env.error!;
}

/** Sets `fault` after making sure the bridge holds a fresh compatible verdict. */
async function armed(peer: Peer, sim: Simulator, fault: Fault): Promise<void> {
  sim.control.setFault("none");
  assertOk(await peer.tool("portreeve_settings_get"), `settings_get before ${fault}`);
  sim.control.setFault(fault);
}

function count(sim: Simulator, path: string): number {
  return sim.requests.filter((r) => r.path === path).length;
}

Deno.test("daemon faults: stable codes within the deadline, no re-sent mutation, recovery without a bridge restart", async (t) => {
  const main = await withSimulator();
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-rel-ws-" }));
  const fakeDir = await Deno.makeTempDir({ prefix: "prmcp-rel-fake-" });
  const peers: Peer[] = [];
  const timings: Record<string, number> = {};
  try {
    const peer = spawnPeer({ socketPath: main.socketPath, serveArgs: ["--label", "faults"] });
    peers.push(peer);
    await peer.initialize();
    const { sim } = main;

    await t.step("close mid-response: a read is unavailable (retryable)", async () => {
      await armed(peer, sim, "close-mid-response");
      const r = await timed(peer, "portreeve_ports_list");
      assertFails(r, "portreeve_unavailable", true, READ_DEADLINE_MS, "broken read");
      timings["close mid-response (read)"] = r.ms;
    });

    await t.step(
      "close mid-response: a mutation is sent once and says its outcome is unknown",
      async () => {
        await armed(peer, sim, "close-mid-response");
        const before = count(sim, "/v1/leases/acquire");
        const r = await timed(peer, "portreeve_lease_acquire", {
          claim: { project: "faults", workspaceRoot: workspace, component: "api" },
        });
        const e = assertFails(
          r,
          "portreeve_unavailable",
          true,
          READ_DEADLINE_MS,
          "broken mutation",
        );
        assert.match(e.message, /may or may not have been applied/);
        sim.control.setFault("none");
        assertOk(await peer.tool("portreeve_settings_get"), "after the broken mutation");
        assert.equal(count(sim, "/v1/leases/acquire") - before, 1, "the mutation was sent once");
        timings["close mid-response (mutation)"] = r.ms;
      },
    );

    await t.step("non-JSON body: portreeve_invalid_response (not retryable)", async () => {
      await armed(peer, sim, "non-json");
      const r = await timed(peer, "portreeve_ports_list");
      assertFails(r, "portreeve_invalid_response", false, READ_DEADLINE_MS, "non-json");
      timings["non-JSON body"] = r.ms;
    });

    await t.step(
      "the daemon's own failure (internal, HTTP 500): portreeve_daemon_error, logged at warn, not a bug",
      async () => {
        await armed(peer, sim, "internal");
        const r = await timed(peer, "portreeve_ports_list");
        const e = assertFails(r, "portreeve_daemon_error", false, READ_DEADLINE_MS, "internal");
        assert.equal(e.details.daemonCode, "internal");
        assert.match(e.message, /disk is full/);
        await armed(peer, sim, "html-500");
        const page = await timed(peer, "portreeve_ports_list");
        const p = assertFails(page, "portreeve_daemon_error", false, READ_DEADLINE_MS, "html 500");
        assert.equal(p.details.status, 500);
        const log = peer.stderrText().split("\n").filter((l) => l.includes("portreeve_ports_list"));
        assert.ok(log.some((l) => /"level":"WARN".*the daemon failed/.test(l)), log.join("\n"));
        assert.ok(!log.some((l) => /"level":"ERROR"|bug/.test(l)), log.join("\n"));
        timings["daemon's own failure"] = r.ms;
      },
    );

    await t.step("wrong envelope version: portreeve_incompatible", async () => {
      await armed(peer, sim, "wrong-envelope");
      const r = await timed(peer, "portreeve_ports_list");
      assertFails(r, "portreeve_incompatible", false, READ_DEADLINE_MS, "wrong envelope");
      timings["wrong envelope"] = r.ms;
    });

    await t.step(
      "incompatible daemon: portreeve_incompatible; after an upgrade and restart, the next call works",
      async () => {
        await armed(peer, sim, "incompatible");
        const post = await timed(peer, "portreeve_lease_acquire", {
          claim: { project: "faults", workspaceRoot: workspace, component: "incompat" },
        });
        assertFails(post, "portreeve_incompatible", false, READ_DEADLINE_MS, "incompatible POST");
        const get = await timed(peer, "portreeve_ports_list");
        const e = assertFails(get, "portreeve_incompatible", false, READ_DEADLINE_MS, "re-probed");
        assert.match(e.message, /protocol/);
        timings["incompatible protocol"] = get.ms;
        // The daemon is upgraded and restarted, as the error message tells the user to do.
        sim.control.setFault("none");
        await sim.restart();
        assertOk(await peer.tool("portreeve_ports_list"), "first gated call after the upgrade");
      },
    );

    await t.step("daemon restart: the next read and the next mutation succeed", async () => {
      assertOk(await peer.tool("portreeve_ports_list"), "warm");
      await sim.restart();
      assertOk(await peer.tool("portreeve_ports_list"), "first read after restart");
      // A mutation right after a restart meets the connection the old daemon closed; it must
      // still land exactly once (CI caught this failing with EPIPE).
      for (let round = 0; round < 5; round++) {
        await sim.restart();
        const before = count(sim, "/v1/leases/acquire");
        assertOk(
          await peer.tool("portreeve_lease_acquire", {
            claim: { project: "faults", workspaceRoot: workspace, component: `restart${round}` },
          }),
          `first mutation after restart ${round}`,
        );
        assert.equal(count(sim, "/v1/leases/acquire") - before, 1);
      }
    });

    await t.step("daemon down, then back: unavailable (retryable), then success", async () => {
      await sim.close();
      const r = await timed(peer, "portreeve_ports_list");
      const e = assertFails(r, "portreeve_unavailable", true, REFUSED_MS, "daemon down");
      assert.match(e.message, /^Nothing answers at .*\(no socket there\)/);
      assert.match(e.nextStep, /portreeve-mcp doctor --host .*start nothing yourself/);
      timings["daemon down"] = r.ms;
      await sim.restart();
      assertOk(await peer.tool("portreeve_ports_list"), "daemon back");
    });

    await t.step(
      "oversize bodies (> 4 MiB, declared and streamed): portreeve_invalid_response",
      async () => {
        const socketPath = `${fakeDir}/portreeve.sock`;
        const big = "x".repeat(5 * 1024 * 1024);
        const fake = await startFakeDaemon(socketPath, (request) => {
          const url = new URL(request.url);
          if (url.searchParams.get("port") === "7") {
            // Streamed: no content-length, so only the running count can stop it.
            let sent = 0;
            const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
            return new Response(
              new ReadableStream<Uint8Array>({
                pull(controller) {
                  if (sent === 0) controller.enqueue(new TextEncoder().encode('{"padding":"'));
                  if (sent > 6 * 1024 * 1024) return controller.close();
                  controller.enqueue(chunk);
                  sent += chunk.length;
                },
              }),
              { headers: { "content-type": "application/json" } },
            );
          }
          if (url.pathname === "/v1/ports") {
            return new Response(envelope({ padding: big }), {
              headers: { "content-type": "application/json" },
            });
          }
          return new Response(envelope({}), { headers: { "content-type": "application/json" } });
        });
        const fakePeer = spawnPeer({ socketPath });
        peers.push(fakePeer);
        try {
          await fakePeer.initialize();
          const declared = await timed(fakePeer, "portreeve_ports_list");
          assertFails(declared, "portreeve_invalid_response", false, READ_DEADLINE_MS, "declared");
          const streamed = await timed(fakePeer, "portreeve_ports_list", { port: 7 });
          assertFails(streamed, "portreeve_invalid_response", false, READ_DEADLINE_MS, "streamed");
          timings["oversize body (streamed)"] = streamed.ms;
          assertOk(await fakePeer.tool("portreeve_health"), "health after oversize bodies");
          const mem = await fakePeer.memory();
          assert.ok(mem.hwmKiB < 400 * 1024, `peak RSS ${mem.hwmKiB} KiB stays bounded`);
        } finally {
          await fakePeer.closeStdin();
          await fakePeer.exited();
          await fake.close();
        }
      },
    );

    for (const p of peers) {
      assert.deepEqual(p.violations, [], "stdout carried frames only");
      assertNoBridgeBug(p, "the daemon faults");
    }
    console.log(
      "fault → answered after (ms):\n" +
        Object.entries(timings).map(([k, v]) => `  ${k}: ${Math.round(v)}`).join("\n"),
    );
  } finally {
    for (const p of peers) {
      await p.closeStdin();
      await p.exited();
    }
    await main.cleanup();
    await Deno.remove(workspace, { recursive: true });
    await Deno.remove(fakeDir, { recursive: true }).catch(() => {});
  }
});
