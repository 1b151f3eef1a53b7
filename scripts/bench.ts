/**
 * `deno task bench`: start-up, memory, per-call overhead and context cost, each as a ratio
 * against a baseline measured in the same run, then the README's test command timed. Prints
 * one table and writes the run to docs/performance.json, from which docs/performance.md and
 * the README's figures are rendered (scripts/bench/report.ts). Not a test: it never asserts a
 * time. Run it on an idle machine; figures are medians over repeated runs.
 *
 *   BENCH_RUNS=15 BENCH_SOAK=10000 BENCH_LARGE_FLOOD=2000 deno task bench
 *   BENCH_TEST_SUITE=0 deno task bench   # keep the last timing of the test command
 *   PORTREEVE_LIVE_SOCKET=/path/to/portreeve.sock deno task bench   # also per call vs a real daemon
 *   BENCH_AGENTS=50 deno task bench    # many agents on one slow daemon (0 skips; ~8 min at 50)
 */
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { childEnv, confinedFlags, DAEMON_URL_HOST } from "../src/shared/permissions.ts";
import { startSimulator } from "../src/simulator/mod.ts";
import { TOOLSETS } from "../src/shared/options.ts";
import { measureScrub } from "./bench/scrub.ts";
import { envelopeOf } from "../src/results/result.ts";
import { runResultScenario } from "../tests/support/result_scenario.ts";
import { manyAgentsRows } from "./bench/many_agents.ts";
import {
  attachPeer,
  type Message,
  openingFrames,
  type Peer as RawPeer,
  type PeerOptions,
  requestFrame,
  type ToolResult,
} from "../tests/support/raw_peer.ts";
import { LARGE_CALL, PING, TOOLS_LIST, unreadFlood } from "../tests/load/unread_host.ts";
import reference from "../tests/fixtures/reference_results.json" with { type: "json" };
import referenceCatalogue from "../tests/fixtures/reference-catalogue.json" with { type: "json" };
import { codeModeBytes, type ListedForCodeMode } from "./bench/code_mode.ts";
import { SERVER_INSTRUCTIONS } from "../src/catalogue/instructions.ts";
import { type Host, hostBytes, VIEW_HOSTS } from "../tests/support/host_views.ts";
import { BENCH_JSON, BenchRun, performanceDoc, withBenchBlocks } from "./bench/report.ts";
import { writeFormatted } from "./doc_blocks.ts";
import { timeTestCommand } from "./bench/test_time.ts";

const RUNS = Number(Deno.env.get("BENCH_RUNS") ?? 15);
const AGENTS = Number(Deno.env.get("BENCH_AGENTS") ?? 50);
const SOAK = Number(Deno.env.get("BENCH_SOAK") ?? 10_000);
const CALLS = 300;
const root = (p: string) => fileURLToPath(new URL(`../${p}`, import.meta.url));
/** The reference bridge's medians, recorded once (tests/fixtures/reference-measurements.json). */
const anchor = z.object({
  coldStartMs: z.number(),
  peakRssAfterToolsListMiB: z.number(),
  peakRssAfter455CallsMiB: z.number(),
  warmCallMs: z.record(z.string(), z.number()),
  toolsListBytes: z.number(),
  codeMode: z.object({ allToolsBytes: z.number() }),
}).parse(JSON.parse(await Deno.readTextFile(root("tests/fixtures/reference-measurements.json"))));

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "portreeve-bench-" }));
const socketPath = `${dir}/portreeve.sock`;
// Like the real daemon, the simulator takes fresh listener evidence (lsof) on every ports call.
const sim = await startSimulator({ socketPath, observeHost: true, lapses: "clock" });
for (let port = 42000; port < 42030; port++) {
  sim.control.addListener(port, 60_000 + port, { command: "node" });
}

const floorDir = `${dir}/floor`;
const floorCallEntry = root("scripts/bench/sdk_call_floor.ts");
await deno([
  "bundle",
  "--quiet",
  "--minify",
  "--platform=deno",
  "--code-splitting",
  "--outdir",
  floorDir,
  root("scripts/bench/sdk_floor.ts"),
]);

const encoder = new TextEncoder();
const OPENING = openingFrames(0, "bench") + requestFrame(1, "tools/list");

/** The shared raw peer over a child's stdio: `deno run` under the grant of `socket`. */
class Peer {
  readonly #child: Deno.ChildProcess;
  readonly #peer: RawPeer;

  constructor(args: readonly string[], socket = socketPath, options: PeerOptions = {}) {
    this.#child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...confinedFlags(socket), ...args],
      env: childEnv({ PORTREEVE_SOCKET: socket }),
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const child = this.#child;
    this.#peer = attachPeer(child, child.stdin, child.stdout, null, child.pid, options);
  }

  send(text: string): Promise<void> {
    return this.#peer.send(text);
  }

  /** The response to `id`, and the bytes of the line that carried it. */
  async response(id: number): Promise<{ message: Message; bytes: number }> {
    const message = await this.#peer.response(id, 60_000);
    return { message, bytes: this.#peer.responseBytes(id) ?? 0 };
  }

  call(name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
    return this.#peer.tool(name, args, 60_000);
  }

  async memory(): Promise<{ hwm: number; rss: number }> {
    const { hwmKiB, rssKiB } = await this.#peer.memory();
    return { hwm: hwmKiB / 1024, rss: rssKiB / 1024 };
  }

  async close(): Promise<void> {
    await this.#peer.closeStdin();
    await this.#peer.exited();
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

interface Cold {
  ms: number;
  hwm: number;
}

/**
 * Spawn → initialize → tools/list for each program, round-robin (one run of each, RUNS
 * times), so drift on a busy machine hits every program alike; medians of time and VmHWM.
 */
async function coldStarts(programs: readonly (readonly string[])[]): Promise<Cold[]> {
  const times = programs.map(() => [] as number[]);
  const hwms = programs.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i++) {
    for (const [k, args] of programs.entries()) {
      const started = performance.now();
      const peer = new Peer(args);
      await peer.send(OPENING);
      await peer.response(1);
      times[k].push(performance.now() - started);
      hwms[k].push((await peer.memory()).hwm);
      await peer.close();
    }
  }
  return programs.map((_, k) => ({ ms: median(times[k]), hwm: median(hwms[k]) }));
}

/** Times ways of doing the same thing, alternating call by call so all see the same machine. */
async function timeAlternating(fns: (() => Promise<unknown>)[]): Promise<number[]> {
  for (let i = 0; i < 20; i++) for (const fn of fns) await fn();
  const times = fns.map(() => [] as number[]);
  for (let i = 0; i < CALLS; i++) {
    for (const [k, fn] of fns.entries()) {
      const started = performance.now();
      await fn();
      times[k].push(performance.now() - started);
    }
  }
  return times.map(median);
}

async function deno(args: string[]): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), { args, stderr: "inherit" }).output();
  if (!out.success) throw new Error(`deno ${args[0]} failed`);
}

const rows: [string, string, string, string][] = [];
const HOST_LABEL: Record<Host, string> = {
  claude: "Claude Code",
  codex: "Codex",
  gemini: "Gemini CLI",
};
/** This bridge ÷ the reference bridge, for the README (filled in as the rows are). */
const versusReference: Partial<BenchRun["versusReference"]> = {};
/** This bridge ÷ the SDK's empty server, for the README. */
const versusSdk: Partial<BenchRun["versusSdk"]> = {};
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
const fmt = (n: number, unit: string) => `${n.toFixed(unit === "ms" && n < 10 ? 2 : 1)} ${unit}`;

// ── Cold start and peak memory ───────────────────────────────────────────────────────────
console.error(`cold start: ${RUNS} runs each…`);
const [bridgeSrc, bridgeBundle, floorSrc, floorBundle, bare] = await coldStarts([
  [root("main.ts"), "serve"],
  [root("dist/main.js"), "serve"],
  [root("scripts/bench/sdk_floor.ts")],
  [`${floorDir}/sdk_floor.js`],
  [root("scripts/bench/bare.ts")],
]);
const anchorStart = anchor.coldStartMs;
const anchorRss = anchor.peakRssAfterToolsListMiB;
versusSdk.coldStart = bridgeBundle.ms / floorBundle.ms;
versusSdk.peakRss = bridgeBundle.hwm / floorBundle.hwm;
/** A row comparing the bridge with the SDK floor run the same way. */
const versusFloor = (label: string, ours: number, floor: number, unit: string, extra = "") =>
  rows.push([
    label,
    fmt(ours, unit),
    `${ratio(ours, floor)} SDK floor ${fmt(floor, unit)}${extra}`,
    "≤ 1.15×",
  ]);
versusFloor("cold start, source (spawn → tools/list)", bridgeSrc.ms, floorSrc.ms, "ms");
versusFloor("cold start, bundle", bridgeBundle.ms, floorBundle.ms, "ms");
rows.push([
  "cold start vs bare Deno / vs anchor",
  fmt(bridgeBundle.ms, "ms"),
  `${ratio(bridgeBundle.ms, bare.ms)} bare ${fmt(bare.ms, "ms")}; ${
    ratio(bridgeBundle.ms, anchorStart)
  } anchor ${fmt(anchorStart, "ms")}`,
  "",
]);
versusFloor("peak RSS after tools/list, source", bridgeSrc.hwm, floorSrc.hwm, "MiB");
versusFloor(
  "peak RSS after tools/list, bundle",
  bridgeBundle.hwm,
  floorBundle.hwm,
  "MiB",
  `; ${ratio(bridgeBundle.hwm, anchorRss)} anchor`,
);

// ── Per-call overhead against the same request sent straight to the socket ──────────────
console.error(`per call: ${CALLS} calls each…`);
/** Health and ports_list through MCP against the same requests sent straight to `socket`. */
async function perCall(socket: string, label: string): Promise<Peer> {
  const peer = new Peer([root("dist/main.js"), "serve"], socket, { history: false });
  const floor = new Peer([floorCallEntry], socket);
  for (const p of [peer, floor]) {
    await p.send(OPENING);
    await p.response(1);
  }
  const http = Deno.createHttpClient({ proxy: { transport: "unix", path: socket } });
  const direct = (path: string) => async () =>
    await (await fetch(`http://${DAEMON_URL_HOST}${path}`, { client: http })).text();
  for (
    const [tool, path, target] of [
      ["portreeve_health", "/v1/health", "≤ 1.5×"],
      ["portreeve_ports_list", "/v1/ports", "≤ 1.1×"],
    ] as const
  ) {
    const [mcp, viaFloor, straight] = await timeAlternating([
      () => peer.call(tool),
      () => floor.call("get", { path }),
      direct(path),
    ]);
    const anchorMs = anchor.warmCallMs[tool];
    rows.push([
      `${tool} through MCP${label}`,
      fmt(mcp, "ms"),
      `${ratio(mcp, straight)} direct ${fmt(straight, "ms")}; ${
        ratio(mcp, viaFloor)
      } SDK call floor ${fmt(viaFloor, "ms")}; ${ratio(mcp, anchorMs)} anchor`,
      target,
    ]);
  }
  http.close();
  await floor.close();
  return peer;
}
const live = Deno.env.get("PORTREEVE_LIVE_SOCKET");
if (live) await (await perCall(live, " (real daemon)")).close();
const peer = await perCall(socketPath, " (simulator)");

// ── Soak: RSS growth over SOAK mixed calls ───────────────────────────────────────────────
console.error(`soak: ${SOAK} calls…`);
const mix = [
  "portreeve_health",
  "portreeve_ports_list",
  "portreeve_settings_get",
  "portreeve_claims_list",
  "portreeve_diagnostics",
];
for (let i = 0; i < 500; i++) await peer.call(mix[i % mix.length]);
const before = await peer.memory();
for (let i = 0; i < SOAK; i++) await peer.call(mix[i % mix.length]);
const after = await peer.memory();
rows.push([
  "RSS growth over the soak",
  `${fmt(before.rss, "MiB")} → ${fmt(after.rss, "MiB")}`,
  `${(((after.rss - before.rss) / before.rss) * 100).toFixed(1)}%`,
  "≤ 10%",
]);
rows.push([
  "peak RSS after the soak",
  fmt(after.hwm, "MiB"),
  `${ratio(after.hwm, anchor.peakRssAfter455CallsMiB)} anchor after 455 calls`,
  "",
]);
await peer.close();

// ── Memory while the host reads nothing, then drains (tests/load/memory_test.ts) ──────
// The test's floods, run the same way; fewer ~1 MiB calls by default (each takes ~5 ms).
const LARGE_FLOOD = Number(Deno.env.get("BENCH_LARGE_FLOOD") ?? 2_000);
for (
  const [kind, count] of [[PING, 20_000], [TOOLS_LIST, 20_000], [LARGE_CALL, LARGE_FLOOD]] as const
) {
  console.error(`unread flood: ${count} × ${kind.name}…`);
  const { figures } = await unreadFlood(kind, count, 100);
  rows.push([
    `peak RSS, host not reading, ${count} × ${kind.name}`,
    fmt(figures.peakRssMiB, "MiB"),
    `${ratio(figures.peakRssMiB, bridgeSrc.hwm)} after tools/list; ${
      fmt(figures.endRssMiB, "MiB")
    } once drained`,
    "≤ 150 MiB",
  ]);
}

// ── Credential scrubber on the stdout path ───────────────────────────────────────────────
for (const held of [10, 1000]) {
  const cost = measureScrub(held);
  rows.push([
    `credential scrubber, ${held} credentials held`,
    `${cost.msPerMiB.toFixed(1)} ms/MiB of frames`,
    `${(cost.msPerMiB / cost.stringifyMsPerMiB).toFixed(1)}× JSON.stringify of the same frames`,
    "",
  ]);
}

// ── Context cost per toolset ─────────────────────────────────────────────────────────────
const utf8Bytes = (text: string) => encoder.encode(text).length;
/** What every host shows its model of a listing: names, descriptions, input schemas. */
const modelVisible = (message: Message) =>
  ((message.result as { tools: unknown }).tools as {
    name: string;
    description: string;
    inputSchema: unknown;
  }[]).reduce(
    (n, t) => n + t.name.length + t.description.length + JSON.stringify(t.inputSchema).length,
    0,
  );
// The reference bridge's catalogue, served the same way in this run: its recorded names and
// input schemas, descriptions of the recorded lengths (tests/hosts/reference_server.ts). Its
// output schemas are not recorded, so only the part a model is shown compares side by side.
const referenceVisible = await (async () => {
  const p = new Peer([root("tests/hosts/reference_server.ts")]);
  await p.send(OPENING);
  const { message } = await p.response(1);
  await p.close();
  return modelVisible(message);
})();
for (const toolset of TOOLSETS) {
  const p = new Peer([root("dist/main.js"), "serve", "--toolset", toolset]);
  await p.send(OPENING);
  const { message, bytes } = await p.response(1);
  await p.close();
  const tools = (message.result as { tools: unknown }).tools as (ListedForCodeMode & {
    description: string;
    outputSchema?: unknown;
  })[];
  const visible = modelVisible(message);
  // Output schemas declare every field (Codex's code mode types programs by them); no host
  // puts them in a model's context otherwise, so only the model-visible part has a target.
  const target = toolset === "full" ? "≤ 22 KB model-visible" : "";
  if (toolset === "full") versusReference.toolsListBytes = visible / referenceVisible;
  const anchorNote = toolset === "full"
    ? `; ${ratio(visible, referenceVisible)} the reference's ${
      (referenceVisible / 1024).toFixed(1)
    } KB, served in this run; ${ratio(bytes, anchor.toolsListBytes)} its recorded total`
    : "";
  rows.push([
    `tools/list, ${toolset} (${tools.length} tools)`,
    `${(bytes / 1024).toFixed(1)} KB total`,
    `${(visible / 1024).toFixed(1)} KB model-visible${anchorNote}`,
    target,
  ]);
  if (toolset !== "full") continue;
  const schemas = tools.map((t) => ({
    name: t.name,
    bytes: utf8Bytes(JSON.stringify(t.inputSchema)) +
      utf8Bytes(JSON.stringify(t.outputSchema ?? {})),
  })).sort((a, b) => b.bytes - a.bytes);
  rows.push([
    "input + output schemas, per tool",
    `${(schemas[0].bytes / 1024).toFixed(1)} KB largest (${schemas[0].name})`,
    `${(schemas.reduce((n, s) => n + s.bytes, 0) / tools.length / 1024).toFixed(2)} KB on average`,
    "",
  ]);
  // Code mode repeats the instructions beside every tool and types its input and output.
  const codeMode = codeModeBytes(tools, SERVER_INSTRUCTIONS);
  versusReference.codeMode = codeMode / anchor.codeMode.allToolsBytes;
  rows.push([
    "Codex code mode ALL_TOOLS, estimate (scripts/bench/code_mode.ts; through Codex: docs/hosts.md)",
    `${(codeMode / 1024).toFixed(1)} KB`,
    `${ratio(codeMode, anchor.codeMode.allToolsBytes)} reference measured ${
      (anchor.codeMode.allToolsBytes / 1024).toFixed(1)
    } KB`,
    "≤ 0.8×",
  ]);
  // Codex's tool_search line and namespace description, Claude Code's deferred listing: the
  // instructions as they are, beside the reference's (whose text the fixture does not keep).
  const line = (length: number) => "- mcp__portreeve: ".length + length;
  const instructions = utf8Bytes(SERVER_INSTRUCTIONS);
  versusReference.instructions = instructions / referenceCatalogue.instructionsLength;
  rows.push([
    "server instructions (Codex tool_search line)",
    `${instructions} B (${line(instructions)} B)`,
    `${
      ratio(instructions, referenceCatalogue.instructionsLength)
    } reference ${referenceCatalogue.instructionsLength} B (${
      ratio(line(instructions), line(referenceCatalogue.instructionsLength))
    } ${line(referenceCatalogue.instructionsLength)} B)`,
    "≤ 0.8×",
  ]);
}

// ── Result bytes the model sees: the reference session's calls, and a 200-port page ─────
console.error("result bytes: the reference session's calls…");
rows.push(...await resultRows());

await sim.close();
await Deno.remove(dir, { recursive: true });

// ── Many agents on one slow daemon (tests/load/many_agents_test.ts at scale) ──────────────
if (AGENTS > 0) rows.push(...await manyAgentsRows(AGENTS));

/**
 * What each host shows its model (tests/support/host_views.ts) of the calls of the reference
 * bridge's recorded session, replayed against a fresh simulator: successes and errors summed
 * apart per host, against the reference's (one copy of its JSON on every host), and the single
 * record (not a page) that is largest against the reference's; then every page of 200 ports
 * with live listeners, compact against `detail: "full"`.
 */
async function resultRows(): Promise<[string, string, string, string][]> {
  const place = await Deno.realPath(await Deno.makeTempDir());
  const socket = `${place}/portreeve.sock`;
  const resultSim = await startSimulator({
    socketPath: socket,
    observeHost: false,
    lapses: "clock",
  });
  // The recorded session's roots were /home/dev/work/demo-app and /home/dev/work/demo-stack;
  // roots of the same length keep the temp folder's name out of the comparison.
  const sameLength = (reference: string, fill: string) =>
    `${place}/${fill.repeat(Math.max(1, reference.length - place.length - 1))}`;
  const workspace = sameLength("/home/dev/work/demo-app", "w");
  const stackRoot = sameLength("/home/dev/work/demo-stack", "s");
  await Deno.mkdir(workspace);
  await Deno.mkdir(stackRoot);
  // The reference never asks; `auto` lets this peer (which cannot ask) execute as the last
  // benches did, so the byte comparison stays like for like.
  const peer = new Peer([root("dist/main.js"), "serve", "--approval", "auto"], socket);
  await peer.send(OPENING);
  await peer.response(1);
  const visibleBytes = (content: unknown) => encoder.encode(JSON.stringify(content)).length;
  const call = async (tool: string, args: Record<string, unknown>) => {
    const result = await peer.call(tool, args);
    return envelopeOf(result) as { ok: boolean; data?: Record<string, unknown> };
  };
  // Side by side, step by step: successes where both bridges succeeded, errors where both
  // refused (a refusal the reference answered without structuredContent is left aside).
  const recorded = new Map(reference.calls.map((c) => [c.seq, c]));
  const none = () => ({ claude: 0, codex: 0, gemini: 0 });
  const tally = {
    ok: { ours: none(), theirs: 0, calls: 0 },
    error: { ours: none(), theirs: 0, calls: 0 },
  };
  let worst = { tool: "", ratio: 0, host: "claude" as Host };
  await runResultScenario(async (seq, tool, args) => {
    const result = await peer.call(tool, args);
    const content = envelopeOf(result) as { ok: boolean; data?: Record<string, unknown> };
    const theirs = recorded.get(seq);
    if (theirs !== undefined && theirs.ok === content.ok && theirs.structuredContentBytes > 0) {
      const side = content.ok ? tally.ok : tally.error;
      const shown = hostBytes(result);
      for (const host of VIEW_HOSTS) {
        side.ours[host] += shown[host];
        const single = content.ok && !Array.isArray(content.data?.items);
        const against = shown[host] / theirs.structuredContentBytes;
        if (single && against > worst.ratio) worst = { tool, ratio: against, host };
      }
      side.theirs += theirs.structuredContentBytes;
      side.calls++;
    }
    return content;
  }, { sim: resultSim, workspace, stackRoot });

  for (let i = 0; i < 200; i++) {
    const lease = await call("portreeve_lease_acquire", {
      claim: { project: "bench", workspaceRoot: workspace, component: `c${i}`, endpoint: "http" },
      allocation: { mode: "sticky", preferredPort: 30000 + i },
    });
    const port = lease.data!.port as number;
    resultSim.control.addListener(port, 50000 + i, { ppid: 49999, command: "node" });
    await call("portreeve_lease_confirm", {
      credentialHandle: lease.data!.credentialHandle,
      rootPid: 50000 + i,
    });
  }
  // Every page of the 200, in each form: a page stops at 30,000 characters of what it shows,
  // so a compact page holds more of them than a full one.
  const allPages = async (extra: Record<string, unknown>) => {
    let bytes = 0;
    let items = 0;
    let pages = 0;
    let afterCursor: string | undefined;
    do {
      const page = await call("portreeve_ports_list", {
        listening: true,
        limit: 200,
        ...extra,
        ...(afterCursor ? { afterCursor } : {}),
      });
      bytes += visibleBytes(page);
      pages++;
      items += (page.data!.items as unknown[]).length;
      afterCursor = (page.data!.page as { nextCursor?: string }).nextCursor;
    } while (afterCursor);
    if (items !== 200) throw new Error(`paged ${items} ports, not 200`);
    return { bytes, pages };
  };
  const compact = await allPages({});
  const full = await allPages({ detail: "full" });
  await peer.close();
  await resultSim.close();
  await Deno.remove(place, { recursive: true });
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const perHost = (side: typeof tally.ok) =>
    Object.fromEntries(VIEW_HOSTS.map((h) => [h, side.ours[h] / side.theirs])) as Record<
      Host,
      number
    >;
  versusReference.successResults = perHost(tally.ok);
  versusReference.errorResults = perHost(tally.error);
  versusReference.worstRecord = { tool: worst.tool, host: worst.host, ratio: worst.ratio };
  const hostRows = (side: typeof tally.ok, what: string, target: string) =>
    VIEW_HOSTS.map((host): [string, string, string, string] => [
      `results, reference session: ${side.calls} ${what}, as ${HOST_LABEL[host]} shows them`,
      `${kb(side.ours[host])}`,
      `${ratio(side.ours[host], side.theirs)} reference bridge ${kb(side.theirs)}`,
      target,
    ]);
  return [
    ...hostRows(tally.ok, "successes", "≤ 0.75×"),
    ...hostRows(tally.error, "errors", "≤ 1.5×"),
    [
      "results, largest single record against the reference's",
      `${worst.tool} (${HOST_LABEL[worst.host]})`,
      `${worst.ratio.toFixed(2)}×`,
      "≤ 1×",
    ],
    [
      "results, ports_list 200 live ports, all pages",
      `${kb(compact.bytes)} in ${compact.pages} pages`,
      `${ratio(compact.bytes, full.bytes)} the same ports with detail "full" ${
        kb(full.bytes)
      } in ${full.pages} pages`,
      "< 1×",
    ],
  ];
}

const testSuite = await timeTestSuite();
const run = BenchRun.parse({
  date: new Date().toISOString().slice(0, 10),
  machine: await machine(),
  runs: RUNS,
  soak: SOAK,
  rows,
  versusSdk,
  versusReference,
  testSuite,
});
const widths = run.rows[0].map((_, i) => Math.max(...run.rows.map((r) => r[i].length)));
console.log(
  `\nportreeve-mcp bench — ${run.date}\n\n` +
    run.rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join("  ")).join("\n"),
);
await writeFormatted(root(BENCH_JSON), JSON.stringify(run, null, 2) + "\n");
await writeFormatted(root("docs/performance.md"), performanceDoc(run));
const readme = root("README.md");
await writeFormatted(readme, withBenchBlocks(await Deno.readTextFile(readme), run));
console.error(`wrote ${BENCH_JSON}, docs/performance.md and the README's figures`);

/**
 * The README's test command, timed quiet and beside CPU-bound processes, four per core
 * (scripts/bench/test_time.ts; `BENCH_BUSY=0` skips the busy run). With BENCH_TEST_SUITE=0
 * the last run's timing is kept.
 */
async function timeTestSuite(): Promise<BenchRun["testSuite"]> {
  if (Deno.env.get("BENCH_TEST_SUITE") === "0") {
    const last = await Deno.readTextFile(root(BENCH_JSON)).then(
      (text) => BenchRun.shape.testSuite.parse(JSON.parse(text).testSuite),
      () => undefined,
    );
    if (last === undefined) throw new Error(`BENCH_TEST_SUITE=0, but ${BENCH_JSON} has no timing`);
    return last;
  }
  return await timeTestCommand(root(""), { busy: Deno.env.get("BENCH_BUSY") !== "0" });
}

/** The machine: OS, CPU, cores, memory, Deno. */
async function machine(): Promise<BenchRun["machine"]> {
  const cpu = await Deno.readTextFile("/proc/cpuinfo").then(
    (text) => text.match(/^model name\s*:\s*(.+)$/m)?.[1]?.trim(),
    () => undefined,
  );
  return {
    os: Deno.build.os,
    arch: Deno.build.arch,
    ...(cpu ? { cpu } : {}),
    cores: navigator.hardwareConcurrency,
    memoryGiB: Math.round(Deno.systemMemoryInfo().total / 1024 ** 3),
    deno: Deno.version.deno,
  };
}
