/**
 * Many agents, one daemon, any bridge: N bridge processes started together on one socket, each
 * from a command line (this bridge, PortReeve's own `portreeve mcp serve`, anything that speaks
 * MCP over stdio and finds the socket in `PORTREEVE_SOCKET`). Each agent sends one
 * `lease_acquire` and some reads at once, each asking for progress, and waits for every answer
 * however long the daemon takes. The report counts reads answered with data, acquires by
 * outcome (granted, refused, unknown), waits (p50/p95/max) per kind, progress notes heard and
 * the peak RSS of each bridge. What the run acquired is given back before the bridges stop.
 * The load test runs it on the simulator (tests/load/crowd_test.ts); scripts/bench/crowd.ts
 * runs it on any socket and commands.
 */
import { attachPeer, envelopeOf, type Peer, readMemory, type ToolResult } from "./raw_peer.ts";
import { childEnv } from "../../src/shared/permissions.ts";

export interface CrowdOptions {
  socketPath: string;
  bridges: number;
  /** One bridge's command line (argv); its environment names the socket. */
  command: readonly string[];
  /** An existing folder: every agent's claim is in it. */
  workspace: string;
  /** Claims are project `crowd-<label>`, so two runs on one daemon share none. */
  label: string;
  /** Reads each agent sends beside its acquire (4 unless set). */
  reads?: number;
  /** Progress lines (the bench prints them on stderr). */
  log?: (line: string) => void;
}

/** Waits of one kind of call, in ms. */
export interface Waits {
  count: number;
  p50: number;
  p95: number;
  max: number;
}

export interface CrowdReport {
  label: string;
  bridges: number;
  reads: { sent: number; withData: number; unavailable: number; errors: Record<string, number> };
  acquires: {
    sent: number;
    granted: number;
    /** Answered with a definite refusal (a lapse, a conflict…), by code. */
    refused: Record<string, number>;
    /** Answered without a definite outcome: "may or may not have been applied", or no answer. */
    unknown: number;
  };
  waitsMs: { acquire: Waits; read: Waits };
  /** `notifications/progress` frames the bridges sent. */
  progressNotes: number;
  /** Peak RSS (VmHWM) of each bridge process, KiB: median and largest. */
  peakRssKiB: { p50: number; max: number };
  /** Results that were `portreeve_internal`: only ever a bridge bug. */
  bridgeBugs: number;
  /** Bridges that did not exit 0 once their stdin closed. */
  badExits: number;
  wallMs: number;
}

/** The reads each agent makes: tools both bridges have, taking no arguments. */
const READS = [
  "portreeve_ports_list",
  "portreeve_claims_list",
  "portreeve_settings_get",
  "portreeve_health",
];

/** Starting many processes at once on a shared machine can take a while. */
const INITIALIZE_MS = 180_000;

interface Outcome {
  ok: boolean;
  code?: string;
  unknown: boolean;
  data?: Record<string, unknown>;
}

/** A tools/call result read the same way for any bridge: its envelope, or its error text. */
function outcomeOf(result: ToolResult | undefined): Outcome {
  if (result === undefined) return { ok: false, code: "no result", unknown: true };
  try {
    const envelope = envelopeOf(result);
    if (envelope.ok) return { ok: true, unknown: false, data: envelope.data as never };
    const error = envelope.error!;
    const unknown = error.details?.outcome === "unknown" ||
      /may or may not have been applied/.test(error.message);
    return { ok: false, code: error.code, unknown };
  } catch {
    const text = result.content?.map((block) => block.text).join(" ") ?? "";
    return {
      ok: result.isError !== true,
      code: /portreeve_[a-z_]+/.exec(text)?.[0] ?? "error",
      unknown: /may or may not have been applied/.test(text),
    };
  }
}

function waits(values: number[]): Waits {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  return { count: sorted.length, p50: at(0.5), p95: at(0.95), max: at(1) };
}

function spawn(options: CrowdOptions): Peer {
  const [program, ...args] = options.command;
  const process = new Deno.Command(program, {
    args,
    env: childEnv({ PORTREEVE_SOCKET: options.socketPath }),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  return attachPeer(process, process.stdin, process.stdout, process.stderr);
}

export async function runCrowd(options: CrowdOptions): Promise<CrowdReport> {
  const log = options.log ?? (() => {});
  const reads = READS.slice(0, options.reads ?? 4);
  const peers = Array.from({ length: options.bridges }, () => spawn(options));
  const timings = { acquire: [] as number[], read: [] as number[] };
  const report: CrowdReport = {
    label: options.label,
    bridges: options.bridges,
    reads: { sent: 0, withData: 0, unavailable: 0, errors: {} },
    acquires: { sent: 0, granted: 0, refused: {}, unknown: 0 },
    waitsMs: { acquire: waits([]), read: waits([]) },
    progressNotes: 0,
    peakRssKiB: { p50: 0, max: 0 },
    bridgeBugs: 0,
    badExits: 0,
    wallMs: 0,
  };
  const handles: [Peer, string][] = [];
  try {
    log(`${options.label}: starting ${options.bridges} bridges…`);
    await Promise.all(peers.map((peer) => peer.initialize(INITIALIZE_MS)));
    const call = async (peer: Peer, kind: "acquire" | "read", name: string, args: object) => {
      const started = performance.now();
      const id = await peer.post("tools/call", {
        name,
        arguments: args,
        _meta: { progressToken: crypto.randomUUID() },
      });
      const answer = await peer.response(id);
      timings[kind].push(performance.now() - started);
      return outcomeOf(answer.result as ToolResult | undefined);
    };
    log(`${options.label}: every agent acquires and reads at once…`);
    const started = performance.now();
    await Promise.all(peers.map((peer, i) => {
      const claim = {
        project: `crowd-${options.label}`,
        workspaceRoot: options.workspace,
        component: `agent${i}`,
      };
      const acquire = call(peer, "acquire", "portreeve_lease_acquire", { claim }).then((got) => {
        report.acquires.sent++;
        if (got.ok) {
          report.acquires.granted++;
          const handle = got.data?.credentialHandle;
          if (typeof handle === "string") handles.push([peer, handle]);
        } else if (got.unknown || got.code === "portreeve_unavailable") {
          report.acquires.unknown++;
        } else {
          report.acquires.refused[got.code!] = (report.acquires.refused[got.code!] ?? 0) + 1;
        }
      });
      const readAll = reads.map((name) =>
        call(peer, "read", name, {}).then((got) => {
          report.reads.sent++;
          if (got.ok) report.reads.withData++;
          else if (got.code === "portreeve_unavailable") report.reads.unavailable++;
          else report.reads.errors[got.code!] = (report.reads.errors[got.code!] ?? 0) + 1;
        })
      );
      return Promise.all([acquire, ...readAll]);
    }));
    report.wallMs = Math.round(performance.now() - started);
    report.waitsMs = { acquire: waits(timings.acquire), read: waits(timings.read) };
    const peaks = await Promise.all(peers.map(async (peer) => (await readMemory(peer.pid)).hwmKiB));
    const rss = waits(peaks);
    report.peakRssKiB = { p50: rss.p50, max: rss.max };
    log(`${options.label}: all answered in ${(report.wallMs / 1000).toFixed(1)} s; giving back…`);
    // What the run holds goes back to the daemon before the bridges stop.
    await Promise.all(
      handles.map(([peer, credentialHandle]) =>
        peer.tool("portreeve_lease_abandon", { credentialHandle, reason: "client-cancelled" })
          .catch(() => undefined)
      ),
    );
  } finally {
    for (const peer of peers) {
      await peer.closeStdin();
      if ((await peer.exited()).code !== 0) report.badExits++;
      report.progressNotes += peer.stdoutText().split('"notifications/progress"').length - 1;
      report.bridgeBugs += peer.errorCodes.get("portreeve_internal") ?? 0;
    }
  }
  return report;
}
