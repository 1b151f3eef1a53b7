/**
 * Bounded resources, through the real `serve` process, real stdio and flags:
 * - a host that writes 20,000 requests and reads nothing: the bridge stops reading stdin once a
 *   few MiB of answers wait, stays under 150 MiB, then answers every request exactly once when
 *   the host drains stdout;
 * - 10,000 pipelined calls (128 in flight from the host): all answered correctly, at most 32
 *   daemon connections open at once (sampled from /proc/<pid>/fd), peak RSS under 150 MiB;
 * - the same run under `ulimit -n 256`: no call lost to a spurious `portreeve_unavailable`.
 * Figures are printed; memory and connection bounds are asserted, durations never.
 */
import assert from "node:assert/strict";
import { withSimulator } from "../e2e/harness.ts";
import { seeder } from "../e2e/seed.ts";
import {
  checkAnswer,
  mib,
  mixedCall,
  pipelined,
  seedClaims,
  watchSockets,
  withLoadedBridge,
} from "./load.ts";
import {
  assertNoBridgeBug,
  attachPeer,
  frame,
  idKey,
  openingFrames,
  type Peer,
  readMemory,
  type ToolResult,
} from "../support/raw_peer.ts";
import { sleep } from "../support/timed.ts";
import { spawnBridgeProcess } from "../e2e/harness.ts";
import { RELIABILITY_BOUNDS, reportFigure } from "../support/reliability_figures.ts";

const RSS_LIMIT_MIB = RELIABILITY_BOUNDS.peakRssMiB;
const MAX_CONNECTIONS = RELIABILITY_BOUNDS.daemonConnections;
const UNREAD = 20_000;
const PIPELINED = 10_000;
/** Calls the host keeps in flight: within the bridge's 32 running + 96 waiting. */
const HOST_WINDOW = 128;

Deno.test("a host that writes 20,000 requests without reading: RSS stays bounded, then every answer arrives once", async () => {
  const env = await withSimulator();
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-rel-ws-" }));
  const seed = seeder(env.socketPath);
  const process = spawnBridgeProcess({ socketPath: env.socketPath });
  const writer = process.stdin.getWriter();
  let peer: Peer | undefined;
  const stderr = (async () => {
    for await (const _ of process.stderr) { /* drained so logs never block the bridge */ }
  })();
  try {
    const seeded = await seedClaims(seed, workspace, 20);
    const calls = Array.from({ length: UNREAD }, (_, i) => mixedCall(i, seeded));
    const lines = [
      openingFrames("init", "unread"),
      ...calls.map((call, i) =>
        frame({
          jsonrpc: "2.0",
          id: `u${i}`,
          method: "tools/call",
          params: { name: call.name, arguments: call.args },
        })
      ),
    ];
    const bytes = new TextEncoder().encode(lines.join(""));
    // Written in the background: the write blocks once the bridge stops reading stdin.
    const writing = writer.write(bytes);
    let written = false;
    writing.then(() => written = true, () => {});

    // Wait until the bridge has started calling the daemon, then until it stops taking
    // requests (the daemon sees no new call for a while).
    const seedRequests = env.sim.requests.length;
    let last = -1;
    for (
      let i = 0;
      i < 100 && (env.sim.requests.length === seedRequests || env.sim.requests.length !== last);
      i++
    ) {
      last = env.sim.requests.length;
      await sleep(300);
    }
    const held = await readMemory(process.pid);
    const daemonCallsWhileHeld = env.sim.requests.length - seedRequests;
    assert.ok(daemonCallsWhileHeld > 0, "the bridge called the daemon before it held");
    assert.equal(written, false, "the host's writes were held back by the full pipe");
    assert.ok(daemonCallsWhileHeld < UNREAD, `stopped at ${daemonCallsWhileHeld} daemon calls`);
    assert.ok(held.hwmKiB < RSS_LIMIT_MIB * 1024, `peak RSS while unread ${mib(held.hwmKiB)}`);

    // The host drains stdout: every request is answered, each exactly once, correctly.
    writer.releaseLock();
    const reader = attachPeer(
      process,
      process.stdin,
      process.stdout,
      // stderr is already being drained above
      new ReadableStream({ start: (c) => c.close() }),
    );
    peer = reader;
    const answers = await Promise.all(calls.map((_, i) => reader.response(`u${i}`, 120_000)));
    await writing;
    answers.forEach((m, i) => {
      assert.ok("result" in m, `u${i}: ${JSON.stringify(m.error)}`);
      checkAnswer(calls[i], m.result as ToolResult);
    });
    await sleep(300); // a duplicate would have arrived by now
    for (let i = 0; i < UNREAD; i++) {
      assert.equal(reader.byId.get(idKey(`u${i}`))?.length, 1, `u${i} answered once`);
    }
    assert.deepEqual(reader.violations, [], "stdout carried frames only");
    assertNoBridgeBug(reader);
    const end = await readMemory(process.pid);
    assert.ok(end.hwmKiB < RSS_LIMIT_MIB * 1024, `peak RSS ${mib(end.hwmKiB)}`);
    console.log(
      `${UNREAD} requests unread: the bridge held at ${daemonCallsWhileHeld} daemon calls, ` +
        `RSS ${mib(held.rssKiB)} (peak ${mib(held.hwmKiB)}); after draining all ${UNREAD} ` +
        `answered once, peak RSS ${mib(end.hwmKiB)}, ` +
        `${(reader.stdoutText().length / 1024 / 1024).toFixed(1)} MiB of stdout`,
    );
    await reader.closeStdin();
    assert.equal((await reader.exited()).code, 0);
    await reportFigure(
      "requests unread, then drained",
      `held stdin after ${daemonCallsWhileHeld.toLocaleString("en-US")} daemon calls, at ` +
        `${mib(held.rssKiB)}; ` +
        `peak RSS ${mib(end.hwmKiB)}`,
      `${UNREAD.toLocaleString("en-US")} requests`,
    );
  } finally {
    if (peer) await peer.closeStdin();
    else await writer.close().catch(() => {});
    await process.status;
    await stderr.catch(() => {});
    seed.close();
    await env.cleanup();
    await Deno.remove(workspace, { recursive: true });
  }
});

for (const fdLimit of [undefined, 256]) {
  const under = fdLimit ? ` under ulimit -n ${fdLimit}` : "";
  Deno.test(`10,000 pipelined calls${under}: all correct, at most ${MAX_CONNECTIONS} daemon connections, RSS bounded`, async () => {
    await withLoadedBridge(40, async (peer, seeded) => {
      const sockets = watchSockets(peer.pid);
      const started = performance.now();
      let peakConnections = 0;
      let peakKiB = 0;
      try {
        // `pipelined` checks every answer against its own request: any error (busy,
        // unavailable, out of descriptors) fails the run.
        await pipelined(peer, seeded, 0, PIPELINED, HOST_WINDOW);
      } finally {
        const peak = await sockets.stop();
        const ms = performance.now() - started;
        const memory = await peer.memory();
        console.log(
          `${PIPELINED} calls${under}, ${HOST_WINDOW} in flight from the host: ` +
            `${(ms / 1000).toFixed(1)} s; peak daemon connections ${peak}; ` +
            `RSS ${mib(memory.rssKiB)}, peak ${mib(memory.hwmKiB)}`,
        );
        assert.ok(peak <= MAX_CONNECTIONS, `${peak} daemon connections at once`);
        assert.ok(peak > 0, "the sampler saw the connections");
        assert.ok(memory.hwmKiB < RSS_LIMIT_MIB * 1024, `peak RSS ${mib(memory.hwmKiB)}`);
        peakConnections = peak;
        peakKiB = memory.hwmKiB;
      }
      assert.deepEqual(peer.violations, [], "stdout carried frames only");
      assertNoBridgeBug(peer);
      assert.equal(
        peer.byId.size,
        1,
        "every call answered exactly once (only initialize remains)",
      );
      await reportFigure(
        "pipelined calls",
        `peak ${peakConnections} daemon connections; peak RSS ${mib(peakKiB)}`,
        `${PIPELINED.toLocaleString("en-US")}, ${HOST_WINDOW} in flight${under}`,
      );
    }, { fdLimit });
  });
}

/**
 * The daemon here is this process's simulator, which a busy machine can keep from answering for
 * seconds; so it is made late on purpose: a change it holds keeps the fixture's first probe
 * waiting past the 3 s its client once gave a probe (which ended the run now and then in full
 * runs). The fixture's client has no deadline that can fire: only descriptors are measured.
 */
Deno.test("running out of file descriptors is the bridge's own retryable limit, not the daemon being unavailable", async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  const env = await withSimulator({ serial: true, latencyMs: 1, sleep: () => held });
  const seed = seeder(env.socketPath);
  try {
    const ahead = seed.post("/v1/leases/acquire", {
      claim: {
        project: "fd",
        workspaceRoot: env.dir,
        component: "ahead",
        endpoint: "http",
        transport: "tcp",
      },
      allocation: { mode: "sticky", replacementPolicy: "never" },
    });
    const fixture = new URL("./fixtures/fd_exhaustion.ts", import.meta.url).pathname;
    const running = new Deno.Command("sh", {
      args: [
        "-c",
        `ulimit -n 40 && exec "$0" run --quiet --allow-all "$1" "$2" 200`,
        Deno.execPath(),
        fixture,
        env.socketPath,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    await env.sim.arrived((request) => request.path === "/v1/health");
    await sleep(3_500); // a daemon later than the old probe deadline
    release();
    await ahead;
    const out = await running;
    const text = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const counts = JSON.parse(text) as Record<string, number> & {
      sample?: { code: string; retryable: boolean; message: string; nextStep: string };
    };
    console.log(`200 reads at once under ulimit -n 40: ${text.trim()}`);
    assert.ok((counts.portreeve_bridge_resource_limit ?? 0) > 0, "the limit was reached");
    assert.equal(counts.portreeve_unavailable, undefined, "never blamed on the daemon");
    assert.equal(
      (counts.ok ?? 0) + counts.portreeve_bridge_resource_limit,
      200,
      "no other outcome",
    );
    assert.equal(counts.sample?.retryable, true);
    assert.match(counts.sample?.message ?? "", /ran out of file descriptors/);
    assert.match(counts.sample?.nextStep ?? "", /bridge needs a higher open-file limit/);
    await reportFigure(
      "out of file descriptors",
      `${counts.portreeve_bridge_resource_limit} at the limit, ${counts.ok ?? 0} ok, 0 unavailable`,
      "200 reads at once under ulimit -n 40",
    );
  } finally {
    release();
    seed.close();
    await env.cleanup();
  }
});
