/**
 * Many agents on one slow daemon: N real `serve` processes (real flags, real stdio) on one
 * simulator program started with `--latency MS --serial`. All acquire a lease at once; each
 * holds its pending lease through several TTLs (renewed by its bridge's custody) while firing
 * bursts of reads, then starts a real listener process on the port and confirms with its PID.
 * What it measures comes from the daemon's own history (lease_history.ts), the listeners and
 * every JSON-RPC id; the load test asserts on it, the bench prints it.
 */
import { exists } from "./processes.ts";
import { pollUntil } from "./timed.ts";
import { fileURLToPath } from "node:url";
import { BUNDLE_ENTRY } from "../e2e/harness.ts";
import { seeder } from "../e2e/seed.ts";
import { idKey, type Peer, spawnPeer, type ToolResult } from "./raw_peer.ts";
import { envelopeOf } from "../../src/results/result.ts";
import { type LeaseFindings, leaseHistory } from "./lease_history.ts";

const SIMULATOR = fileURLToPath(new URL("../../scripts/simulator.ts", import.meta.url));

export interface ManyAgentsOptions {
  bridges: number;
  /** The daemon's `leaseTtlMilliseconds` for the run (set through its settings route). */
  leaseTtlMs: number;
  /** Each lease is held pending for this many TTLs before it is confirmed. */
  holdTtls: number;
  /** The simulator's `--latency` (with `--serial`). */
  latencyMs: number;
  /** Concurrent reads each agent fires now and then while it holds (more than its work slots). */
  burst: number;
  /** Bridge entry (the bundle by default). */
  entry?: string;
  /** Progress lines (stderr in the bench). */
  log?: (line: string) => void;
}

/** Percentiles of one kind of call, in ms. */
export interface Latency {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface ManyAgentsReport extends LeaseFindings {
  wallMs: number;
  acquired: number;
  confirmed: number;
  /** Listener processes that could not bind their port (someone else had it). */
  bindFailures: number;
  /** tools/call requests sent, and the ids answered not exactly once. */
  calls: number;
  notAnsweredOnce: number;
  /** Results that were `portreeve_internal`: only ever a bridge bug. */
  bridgeBugs: number;
  /** Tool errors seen, as `kind:code` (acquire, read, confirm) with counts. */
  errors: Record<string, number>;
  /** Results that carried a custodyWarning. */
  warned: number;
  latency: Record<string, Latency>;
  /** The simulator's own count: most requests queued at once, and requests served. */
  peakQueue: number;
  served: number;
  /** Bridges that did not exit 0 when their stdin closed. */
  badExits: number;
}

interface Agent {
  peer: Peer;
  /** Requests sent (initialize and every tools/call), each to be answered exactly once. */
  sent: number;
  leaseId?: string;
  port?: number;
  listener?: Deno.ChildProcess;
}

export async function runManyAgents(options: ManyAgentsOptions): Promise<ManyAgentsReport> {
  const log = options.log ?? (() => {});
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-many-" }));
  const socketPath = `${dir}/portreeve.sock`;
  const workspace = `${dir}/workspace`;
  await Deno.mkdir(workspace);
  const simulator = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      SIMULATOR,
      "--socket",
      socketPath,
      "--latency",
      String(options.latencyMs),
      "--serial",
    ],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const simulatorLog = new Response(simulator.stderr).text();
  const seed = seeder(socketPath);
  const agents: Agent[] = [];
  const timings = new Map<string, number[]>();
  const errors: Record<string, number> = {};
  let warned = 0;
  try {
    await pollUntil("the simulator's socket exists", () => exists(socketPath), 20_000);
    await seed.post("/v1/config", { updates: { leaseTtlMilliseconds: options.leaseTtlMs } });
    log(`starting ${options.bridges} bridges…`);
    for (let i = 0; i < options.bridges; i++) {
      const peer = spawnPeer({
        socketPath,
        entry: options.entry ?? BUNDLE_ENTRY,
        serveArgs: ["--label", `agent-${i}`],
      });
      agents.push({ peer, sent: 1 });
    }
    await Promise.all(agents.map((a) => a.peer.initialize()));

    /** One tool call, timed and tallied; the envelope back. */
    const call = async (
      agent: Agent,
      kind: string,
      tool: string,
      args: Record<string, unknown>,
    ) => {
      const started = performance.now();
      agent.sent++;
      const result: ToolResult = await agent.peer.tool(tool, args, 300_000);
      const list = timings.get(kind) ?? [];
      list.push(performance.now() - started);
      timings.set(kind, list);
      // A success's structuredContent, or an error's text read back (errors carry no
      // structuredContent), each with any custody warning.
      const envelope = envelopeOf(result);
      if (envelope.custodyWarning) warned++;
      if (!envelope.ok) {
        const key = `${kind}:${envelope.error.code}`;
        errors[key] = (errors[key] ?? 0) + 1;
        return undefined;
      }
      return envelope;
    };

    const holdMs = options.holdTtls * options.leaseTtlMs;
    const readEveryMs = Math.max(1_000, Math.floor(options.leaseTtlMs / 2));
    log(`${options.bridges} agents acquire at once, hold ${holdMs / 1000} s each, then confirm…`);
    const started = performance.now();
    await Promise.all(agents.map(async (agent, i) => {
      const leased = await call(agent, "acquire", "portreeve_lease_acquire", {
        claim: { project: "many", workspaceRoot: workspace, component: `agent${i}` },
      });
      if (!leased?.ok) return;
      const data = leased.data as Record<string, unknown>;
      agent.leaseId = data.leaseId as string;
      agent.port = data.port as number;
      const until = performance.now() + holdMs;
      while (performance.now() + readEveryMs < until) {
        await sleep(readEveryMs);
        await Promise.all(
          Array.from(
            { length: options.burst },
            () => call(agent, "read", "portreeve_claim_get", { id: data.claimId }),
          ),
        );
      }
      await sleep(Math.max(0, until - performance.now()));
      agent.listener = await listen(agent.port);
      if (!agent.listener) return;
      await call(agent, "confirm", "portreeve_lease_confirm", {
        credentialHandle: data.credentialHandle,
        rootPid: agent.listener.pid,
      });
    }));
    const wallMs = performance.now() - started;
    log(`all agents done in ${(wallMs / 1000).toFixed(0)} s; reading the daemon's history…`);

    const findings = await leaseHistory(seed, agents.flatMap((a) => a.leaseId ?? []));
    const calls = agents.reduce((n, a) => n + a.sent, 0);
    const notAnsweredOnce = agents.reduce((n, a) => n + unevenAnswers(a), 0);
    const listenersUp = agents.map((a) => a.listener && stillListening(a));
    let badExits = 0;
    for (const agent of agents) {
      await agent.peer.closeStdin();
      if ((await agent.peer.exited()).code !== 0) badExits++;
    }
    return {
      ...findings,
      wallMs,
      acquired: agents.filter((a) => a.leaseId).length,
      confirmed: findings.confirmed,
      bindFailures: agents.filter((a) => a.port !== undefined && !a.listener).length +
        listenersUp.filter((up) => up === false).length,
      calls,
      notAnsweredOnce,
      /** `portreeve_internal` results: only ever a bridge bug. */
      bridgeBugs: agents.reduce(
        (n, a) => n + (a.peer.errorCodes.get("portreeve_internal") ?? 0),
        0,
      ),
      errors,
      warned,
      latency: Object.fromEntries([...timings].map(([kind, ms]) => [kind, percentiles(ms)])),
      ...await stopSimulator(simulator, simulatorLog),
      badExits,
    };
  } finally {
    seed.close();
    for (const agent of agents) {
      await agent.peer.closeStdin();
      try {
        agent.listener?.kill("SIGTERM");
        await agent.listener?.status;
      } catch {
        // Already gone.
      }
    }
    try {
      simulator.kill("SIGTERM");
    } catch {
      // Already stopped.
    }
    await simulator.status;
    await Deno.remove(dir, { recursive: true });
  }
}

/** A real listener process on `port`, once it listens; undefined if it cannot bind. */
async function listen(port: number): Promise<Deno.ChildProcess | undefined> {
  const code = `const l = Deno.listen({ hostname: "127.0.0.1", port: ${port} });` +
    `console.log("listening"); for await (const c of l) c.close();`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", code],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { value } = await reader.read();
  await reader.cancel(); // it says nothing more
  if (value?.includes("listening")) return child;
  await child.status;
  return undefined;
}

/** Whether the agent's listener still runs and holds its port (nobody else got it). */
function stillListening(agent: Agent): boolean {
  try {
    Deno.kill(agent.listener!.pid, "SIGCONT");
  } catch {
    return false;
  }
  try {
    Deno.listen({ hostname: "127.0.0.1", port: agent.port! }).close();
    return false; // the port was free: the listener lost it
  } catch (error) {
    return error instanceof Deno.errors.AddrInUse;
  }
}

/**
 * Requests not answered exactly once: ids answered twice (or answered with a null id), and
 * the difference between requests sent and ids answered (a lost answer, or one never asked).
 */
function unevenAnswers(agent: Agent): number {
  let uneven = Math.abs(agent.sent - agent.peer.byId.size);
  for (const [key, answers] of agent.peer.byId) {
    if (answers.length !== 1 || key === idKey(null)) uneven++;
  }
  return uneven;
}

async function stopSimulator(
  simulator: Deno.ChildProcess,
  stderr: Promise<string>,
): Promise<{ peakQueue: number; served: number }> {
  simulator.kill("SIGTERM");
  await simulator.status;
  const line = /SIMULATED daemon queue: (\{.*\})/.exec(await stderr);
  if (!line) throw new Error("the simulator did not report its queue");
  const { peak, served } = JSON.parse(line[1]) as { peak: number; served: number };
  return { peakQueue: peak, served };
}

export function percentiles(values: number[]): Latency {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
  return { count: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
