/**
 * Host death. The bridge holds a standalone lease, a two-lease activation and a
 * launcher operation, so renewals run every ~0.5 s (lease TTL 1.5 s). Then the host dies:
 * SIGKILL of a real intermediate host process (stdin EOF and stdout without a reader), with
 * calls in flight — answered quickly, or hung in a hanging daemon together with a renewal —
 * and, separately, a live parent closing stdin. The bridge must be gone within one second and
 * the daemon must hear nothing from it afterwards: no renewal, no retry, no timer left.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { bridgeArgs, withSimulator } from "../e2e/harness.ts";
import { seeder, TWO_COMPONENT_STACK } from "../e2e/seed.ts";
import {
  alive,
  assertNoBridgeBug,
  attachPeer,
  envelopeOf,
  type Peer,
  spawnPeer,
} from "../support/raw_peer.ts";
import { eventually, sleep } from "../support/timed.ts";
import type { Simulator } from "../../src/simulator/mod.ts";
import { REAL_TIME } from "../support/daemon_clock.ts";
import { RELIABILITY_BOUNDS, reportFigure } from "../support/reliability_figures.ts";

const HOST = fileURLToPath(new URL("./fixtures/host.ts", import.meta.url));
const EXIT_LIMIT_MS = RELIABILITY_BOUNDS.hostDeathExitMs;

type Death =
  | "host SIGKILL mid-burst"
  | "host SIGKILL while the daemon hangs"
  | "parent closes stdin";

async function startHosted(socketPath: string, dir: string): Promise<Peer> {
  const pidFile = `${dir}/bridge.pid`;
  const host = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-run",
      `--allow-write=${pidFile}`,
      "--quiet",
      HOST,
      pidFile,
      Deno.execPath(),
      ...bridgeArgs({ socketPath }),
    ],
    env: { PORTREEVE_SOCKET: socketPath },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let pid = 0;
  // However long a busy machine takes to start it: the host writes its bridge's pid.
  await eventually(() => {
    try {
      pid = Number(Deno.readTextFileSync(pidFile));
    } catch { /* not yet */ }
    return pid > 0;
  });
  return attachPeer(host, host.stdin, host.stdout, host.stderr, pid);
}

/** Acquires a lease, an activation of two leases and a launcher operation. */
async function holdCredentials(peer: Peer, sim: Simulator, dir: string): Promise<void> {
  const ok = async (tool: string, args: Record<string, unknown>) => {
    const env = envelopeOf(await peer.tool(tool, args));
    assert.equal(env.ok, true, `${tool}: ${JSON.stringify(env.error)}`);
    return env.data!;
  };
  const workspace = await Deno.realPath(await Deno.makeTempDir({ dir, prefix: "ws-" }));
  const stackRoot = await Deno.realPath(await Deno.makeTempDir({ dir, prefix: "stack-" }));
  await ok("portreeve_lease_acquire", {
    claim: { project: "death", workspaceRoot: workspace, component: "api" },
  });
  const seed = seeder(sim.socketPath);
  const { stack } = await seed.post("/v1/stacks/apply", {
    stackRoot,
    definition: TWO_COMPONENT_STACK,
  }) as { stack: { id: string } };
  seed.close();
  const prepared = await ok("portreeve_stack_prepare", { stackId: stack.id });
  await ok("portreeve_activation_begin", {
    generationId: (prepared.generation as { id: string }).id,
  });
  await ok("portreeve_launcher_operation_begin", {
    stackId: stack.id,
    operation: "start",
    launcherRevision: "c".repeat(64),
    callerOperationId: crypto.randomUUID(),
  });
}

const renewals = (sim: Simulator) => sim.requests.filter((r) => r.path.endsWith("/renew")).length;

for (
  const death of [
    "host SIGKILL mid-burst",
    "host SIGKILL while the daemon hangs",
    "parent closes stdin",
  ] as Death[]
) {
  Deno.test(`host death (${death}): bridge gone within ${EXIT_LIMIT_MS} ms, nothing reaches the daemon afterwards`, async () => {
    // Real time: the renewals running every ~0.5 s are what the host's death must stop.
    const env = await withSimulator({ ...REAL_TIME, settings: { leaseTtlMilliseconds: 1_500 } });
    const dir = await Deno.makeTempDir({ prefix: "prmcp-rel-death-" });
    const { sim } = env;
    const peer = death === "parent closes stdin"
      ? spawnPeer({ socketPath: env.socketPath })
      : await startHosted(env.socketPath, dir);
    try {
      await peer.initialize();
      await holdCredentials(peer, sim, dir);
      const base = renewals(sim);
      await eventually(() => renewals(sim) >= base + 4); // renewals are running
      const paths = new Set(
        sim.requests.filter((r) => r.path.endsWith("/renew")).map((r) => r.path.split("/")[2]),
      );
      assert.ok(paths.has("leases") && paths.has("stack-activations"), [...paths].join());

      if (death === "host SIGKILL while the daemon hangs") {
        sim.control.setFault("hang");
        const before = sim.requests.length;
        for (let i = 0; i < 10; i++) {
          await peer.post("tools/call", { name: "portreeve_ports_list", arguments: {} });
        }
        const renewsBefore = renewals(sim);
        // The calls and a renewal are hung in the daemon.
        await eventually(() => sim.requests.length >= before + 10 && renewals(sim) > renewsBefore);
      } else {
        // A burst the bridge is still working through when its host goes.
        const burst = [];
        for (let i = 0; i < 40; i++) {
          const name = ["portreeve_ports_list", "portreeve_settings_get", "portreeve_claims_list"][
            i % 3
          ];
          burst.push(JSON.stringify({
            jsonrpc: "2.0",
            id: 90_000 + i,
            method: "tools/call",
            params: { name, arguments: {} },
          }));
        }
        await peer.send(burst.join("\n") + "\n");
      }

      const started = performance.now();
      if (death === "parent closes stdin") await peer.closeStdin();
      else peer.process.kill("SIGKILL");
      let gone = false;
      while (!gone && performance.now() - started < 5_000) {
        gone = !(await alive(peer.pid));
        if (!gone) await sleep(10);
      }
      const ms = performance.now() - started;
      assert.ok(gone, "the bridge exited");
      assert.ok(ms < EXIT_LIMIT_MS, `the bridge exited after ${Math.round(ms)} ms`);
      const requestsAtExit = sim.requests.length;
      const renewalsAtExit = renewals(sim);
      if (death === "parent closes stdin") {
        assert.equal((await peer.exited()).code, 0, "clean exit status");
      }
      sim.control.setFault("none");
      await sleep(2_500); // five renewal periods
      assert.equal(renewals(sim), renewalsAtExit, "no renewal after the bridge died");
      assert.equal(sim.requests.length, requestsAtExit, "no request at all after the bridge died");
      assert.deepEqual(peer.violations, [], "what reached us was frames only");
      assertNoBridgeBug(peer);
      console.log(`${death}: bridge gone ${Math.round(ms)} ms after the host`);
      await reportFigure("host death", `gone after ${Math.round(ms)} ms`, death);
    } finally {
      await peer.closeStdin();
      try {
        peer.process.kill("SIGKILL");
      } catch { /* already gone */ }
      await peer.exited().catch(() => {});
      await env.cleanup();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
