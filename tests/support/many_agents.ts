/**
 * Many agents on one slow daemon: N real `serve` processes (real flags, real stdio) on one
 * simulator program started with `--latency MS --serial`, at the daemon's lease TTL (its
 * default unless `leaseTtlMs` sets one). All acquire a lease at once; an agent told its lease
 * lapsed on the way (`portreeve_lease_lapsed`) acquires again after a random back-off while
 * `retryTtls` TTLs have not passed. Each agent holds its lease through `holdTtls` TTLs firing
 * bursts of reads, checks it, then starts a real listener process on the port and confirms
 * with its PID. Every result's custody warning is recorded, and judged against the daemon's own
 * history (lease_reports.ts); the load test asserts on it, the bench prints it.
 */
import { exists } from "./processes.ts";
import { pollUntil } from "./timed.ts";
import { fileURLToPath } from "node:url";
import { BUNDLE_ENTRY } from "../e2e/harness.ts";
import { seeder } from "../e2e/seed.ts";
import { idKey, type Peer, spawnPeer, type ToolResult } from "./raw_peer.ts";
import { envelopeOf } from "../../src/results/result.ts";
import { leaseHistory } from "./lease_history.ts";
import {
  type HeldReport,
  judgeReports,
  type ReportFindings,
  type SeenResult,
} from "./lease_reports.ts";

const SIMULATOR = fileURLToPath(new URL("../../scripts/simulator.ts", import.meta.url));

export interface ManyAgentsOptions {
  bridges: number;
  /** The daemon's `leaseTtlMilliseconds` for the run; its own default when unset. */
  leaseTtlMs?: number;
  /** Each lease is held pending for this many TTLs before it is checked and confirmed. */
  holdTtls: number;
  /** Lapsed acquires are tried again while this many TTLs have not passed since the start. */
  retryTtls: number;
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

export interface ManyAgentsReport extends ReportFindings {
  /** The lease TTL the daemon granted with (read from its settings). */
  ttlMs: number;
  wallMs: number;
  /** Acquires answered `portreeve_lease_lapsed`: dead or dying on arrival, nothing held. */
  lapsedOnArrival: number;
  /** Agents that got a lease reported held. */
  acquired: number;
  confirmed: number;
  /** Ports two leases held at once, by the daemon's history. */
  doubleHeld: number;
  renewals: number;
  /** Listener processes that could not bind their port (someone else had it). */
  bindFailures: number;
  /** tools/call requests sent, and the ids answered not exactly once. */
  calls: number;
  notAnsweredOnce: number;
  /** Results that were `portreeve_internal`: only ever a bridge bug. */
  bridgeBugs: number;
  /** Tool errors seen, as `kind:code` (acquire, read, check, confirm) with counts. */
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
  name: string;
  peer: Peer;
  /** Requests sent (initialize and every tools/call), each to be answered exactly once. */
  sent: number;
  results: SeenResult[];
  held?: HeldReport;
  listener?: Deno.ChildProcess;
}

/** One slow daemon's place: the simulator program, its socket's folder, a workspace in it. */
export interface SlowDaemon {
  dir: string;
  socketPath: string;
  workspace: string;
  process: Deno.ChildProcess;
  /** Everything it writes on stderr, once it stops. */
  stderr: Promise<string>;
}

/**
 * The simulator program serving one request at a time and `latencyMs` per change, on a socket in
 * a new folder with a workspace beside it; its socket appears shortly after this returns.
 */
export async function startSlowDaemon(latencyMs: number): Promise<SlowDaemon> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-many-" }));
  const socketPath = `${dir}/portreeve.sock`;
  const workspace = `${dir}/workspace`;
  await Deno.mkdir(workspace);
  const process = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      SIMULATOR,
      "--socket",
      socketPath,
      "--latency",
      String(latencyMs),
      "--serial",
    ],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  return { dir, socketPath, workspace, process, stderr: new Response(process.stderr).text() };
}

export async function runManyAgents(options: ManyAgentsOptions): Promise<ManyAgentsReport> {
  const log = options.log ?? (() => {});
  const { dir, socketPath, workspace, process: simulator, stderr: simulatorLog } =
    await startSlowDaemon(options.latencyMs);
  const seed = seeder(socketPath);
  const agents: Agent[] = [];
  const timings = new Map<string, number[]>();
  const errors: Record<string, number> = {};
  let warned = 0;
  let lapsedOnArrival = 0;
  try {
    await pollUntil("the simulator's socket exists", () => exists(socketPath), 20_000);
    if (options.leaseTtlMs !== undefined) {
      await seed.post("/v1/config", { updates: { leaseTtlMilliseconds: options.leaseTtlMs } });
    }
    const settings = await seed.get("/v1/config") as { leaseTtlMilliseconds: number };
    const ttl = settings.leaseTtlMilliseconds;
    log(`starting ${options.bridges} bridges (lease TTL ${ttl / 1000} s)…`);
    for (let i = 0; i < options.bridges; i++) {
      const peer = spawnPeer({
        socketPath,
        entry: options.entry ?? BUNDLE_ENTRY,
        serveArgs: ["--label", `agent-${i}`],
      });
      agents.push({ name: `agent-${i}`, peer, sent: 1, results: [] });
    }
    // Twenty processes starting at once on a shared machine can take a while to answer.
    await Promise.all(agents.map((a) => a.peer.initialize(120_000)));

    /** One tool call, timed and tallied, its warnings recorded; the envelope back. */
    const call = async (
      agent: Agent,
      kind: string,
      tool: string,
      args: Record<string, unknown>,
    ) => {
      const started = performance.now();
      agent.sent++;
      const result: ToolResult = await agent.peer.tool(tool, args, 300_000);
      const seen: SeenResult = { at: Date.now(), atRisk: [], lapsed: [] };
      agent.results.push(seen);
      const list = timings.get(kind) ?? [];
      list.push(performance.now() - started);
      timings.set(kind, list);
      // A success's structuredContent, or an error's text read back (errors carry no
      // structuredContent), each with any custody warning.
      const envelope = envelopeOf(result);
      const warning = envelope.custodyWarning;
      if (warning) {
        warned++;
        seen.atRisk = warning.atRisk.map((item) => item.id);
        seen.lapsed = warning.lapsed.map((item) => item.id);
      }
      if (!envelope.ok) {
        const key = `${kind}:${envelope.error.code}`;
        errors[key] = (errors[key] ?? 0) + 1;
        // A handle whose lease lapsed says so when it is used (confirm): that tells it too.
        if (agent.held && envelope.error.details?.renewalFailure) {
          seen.lapsed.push(agent.held.leaseId);
        }
      }
      return envelope;
    };
    const told = (agent: Agent) =>
      agent.held !== undefined && agent.results.some((r) => r.lapsed.includes(agent.held!.leaseId));
    const atRisk = (agent: Agent) => agent.results.at(-1)?.atRisk.includes(agent.held!.leaseId);

    const holdMs = options.holdTtls * ttl;
    const readEveryMs = Math.max(1_000, Math.floor(ttl / 2));
    log(`${options.bridges} agents acquire at once, hold ${holdMs / 1000} s each, then confirm…`);
    const started = performance.now();
    const retryUntil = Date.now() + options.retryTtls * ttl;
    await Promise.all(agents.map(async (agent, i) => {
      let data: Record<string, unknown> | undefined;
      for (let attempt = 0; !data; attempt++) {
        const leased = await call(agent, "acquire", "portreeve_lease_acquire", {
          claim: { project: "many", workspaceRoot: workspace, component: `agent${i}` },
        });
        if (leased.ok) {
          data = leased.data as Record<string, unknown>;
        } else {
          if (leased.error.code !== "portreeve_lease_lapsed") return;
          lapsedOnArrival++;
          if (Date.now() >= retryUntil) return;
          // Back off for a random stretch that doubles with each lapse (up to 4 TTLs).
          await sleep(Math.random() * ttl * Math.min(4, 2 ** attempt));
        }
      }
      const held: HeldReport = {
        agent: agent.name,
        leaseId: data.leaseId as string,
        port: data.port as number,
        at: agent.results.at(-1)!.at,
      };
      agent.held = held;
      const checkAt = held.at + holdMs;
      while (Date.now() + readEveryMs < checkAt && !told(agent)) {
        await sleep(readEveryMs);
        await Promise.all(
          Array.from(
            { length: options.burst },
            () => call(agent, "read", "portreeve_claim_get", { id: data.claimId }),
          ),
        );
      }
      if (told(agent)) return;
      // The check: one result three TTLs on; while it names the lease at risk, another each
      // second until the renewal lands or the lease is told lapsed.
      await sleep(Math.max(0, checkAt - Date.now()));
      const check = () => call(agent, "check", "portreeve_claim_get", { id: data.claimId });
      await check();
      while (atRisk(agent) && !told(agent) && Date.now() < checkAt + 2 * ttl) {
        await sleep(1_000);
        await check();
      }
      held.checkedAt = agent.results.at(-1)!.at;
      if (told(agent)) return;
      agent.listener = await listen(held.port);
      if (!agent.listener) return;
      await call(agent, "confirm", "portreeve_lease_confirm", {
        credentialHandle: data.credentialHandle,
        rootPid: agent.listener.pid,
      });
    }));
    const wallMs = performance.now() - started;
    log(`all agents done in ${(wallMs / 1000).toFixed(0)} s; reading the daemon's history…`);

    const history = await leaseHistory(seed);
    const reports = agents.flatMap((a) => a.held ?? []);
    const byName = new Map(agents.map((a) => [a.name, a]));
    const findings = judgeReports(history, reports, (name) => byName.get(name)!.results);
    const calls = agents.reduce((n, a) => n + a.sent, 0);
    const notAnsweredOnce = agents.reduce((n, a) => n + unevenAnswers(a), 0);
    const listenersUp = agents.map((a) => a.listener && stillListening(a));
    let badExits = 0;
    for (const agent of agents) {
      await agent.peer.closeStdin();
      if ((await agent.peer.exited()).code !== 0) badExits++;
    }
    const confirmed = reports.filter((r) => history.leases.get(r.leaseId)?.confirmedAt).length;
    return {
      ...findings,
      ttlMs: ttl,
      wallMs,
      lapsedOnArrival,
      acquired: reports.length,
      confirmed,
      doubleHeld: history.doubleHeld,
      renewals: history.renewals,
      bindFailures: agents.filter((a) => a.held && a.held.checkedAt && !a.listener && !told(a))
        .length + listenersUp.filter((up) => up === false).length,
      calls,
      notAnsweredOnce,
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
    Deno.listen({ hostname: "127.0.0.1", port: agent.held!.port }).close();
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
