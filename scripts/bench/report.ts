/**
 * What `deno task bench` leaves behind, and every text made from it. The bench writes its run
 * to docs/performance.json; docs/performance.md and the README's figures (the comparison with
 * the reference bridge, and how long the test command took) are rendered from that file
 * alone, here, so a test can render them again and fail when any of them was edited by hand.
 */
import { z } from "zod";
import { withSection } from "../doc_blocks.ts";

const Ratio = z.number().positive();
/** A ratio as each host shows its model the results (tests/support/host_views.ts). */
const PerHost = z.object({ claude: Ratio, codex: Ratio, gemini: Ratio });

export const BenchRun = z.object({
  /** Day of the run, YYYY-MM-DD. */
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  machine: z.object({
    os: z.string(),
    arch: z.string(),
    cpu: z.string().optional(),
    cores: z.number().int().positive(),
    memoryGiB: z.number().int().positive(),
    deno: z.string(),
  }),
  runs: z.number().int().positive(),
  soak: z.number().int().positive(),
  /** The table: measure, portreeve-mcp, ratio (same run), target. */
  rows: z.array(z.tuple([z.string(), z.string(), z.string(), z.string()])),
  /**
   * The bundled bridge ÷ the MCP SDK's own stdio server with no tools, both started the same way
   * in this run: spawn → initialize → tools/list.
   */
  versusSdk: z.object({ coldStart: Ratio, peakRss: Ratio }),
  /**
   * This bridge ÷ the reference bridge (`portreeve mcp serve`) in bytes: what a model is shown
   * of its tools/list (names, descriptions, input schemas), served in this run from its recorded
   * catalogue, and what a model reads of its recorded session.
   */
  versusReference: z.object({
    toolsListBytes: Ratio,
    /** Codex code mode's ALL_TOOLS, estimated (scripts/bench/code_mode.ts). */
    codeMode: Ratio,
    instructions: Ratio,
    successResults: PerHost,
    errorResults: PerHost,
    /** The single record (not a page) largest against the reference's, on any host. */
    worstRecord: z.object({ tool: z.string(), host: z.string(), ratio: Ratio }),
  }),
  /**
   * The README's test command, timed in a fresh clone on this machine, and again beside
   * CPU-bound processes (four per core since 2026-12-04; `BENCH_TEST_SUITE=0` keeps the last
   * timing).
   */
  testSuite: z.object({
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    command: z.string(),
    seconds: z.number().positive(),
    passed: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
    busy: z.object({
      burners: z.number().int().positive(),
      seconds: z.number().positive(),
      passed: z.number().int().nonnegative(),
      failed: z.number().int().nonnegative(),
    }).nullable(),
  }),
});
export type BenchRun = z.infer<typeof BenchRun>;

export const BENCH_JSON = "docs/performance.json";

/** The machine in one line: OS, CPU, cores, memory, Deno. */
export function machineLine(run: BenchRun): string {
  const m = run.machine;
  return `${m.os}/${m.arch}${m.cpu ? `, ${m.cpu}` : ""}, ${m.cores} cores, ${m.memoryGiB} GiB, ` +
    `Deno ${m.deno}`;
}

const times = (ratio: number) => `${ratio.toFixed(2)}×`;

/** `0.89×` when every host shows the same, else `0.88–0.91×` (lowest to highest). */
function acrossHosts(ratios: z.infer<typeof PerHost>): string {
  const all = Object.values(ratios).map((r) => r.toFixed(2));
  const low = all.reduce((a, b) => (Number(a) <= Number(b) ? a : b));
  const high = all.reduce((a, b) => (Number(a) >= Number(b) ? a : b));
  return low === high ? `${low}×` : `${low}–${high}×`;
}

/** `134` → `2 min 14 s`. */
export function duration(seconds: number): string {
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  return minutes === 0 ? `${whole} s` : `${minutes} min ${whole % 60} s`;
}

/** The README's figures, each a ratio against a baseline of the same run. */
export function benchSummary(run: BenchRun): string[] {
  const sdk = run.versusSdk;
  const r = run.versusReference;
  return [
    `Measured by the last \`deno task bench\` (${run.date}; ` +
    `[docs/performance.md](docs/performance.md)), each against a baseline in the same run: from ` +
    `spawn to tools/list the bridge takes ${times(sdk.coldStart)} the time and ` +
    `${times(sdk.peakRss)} the peak memory of the MCP SDK's own empty stdio server. Against ` +
    `\`portreeve mcp serve\` served in the same run: tools/list ${times(r.toolsListBytes)} its ` +
    `bytes, server instructions ${
      times(r.instructions)
    }, and what a model reads of its recorded session ${
      acrossHosts(r.successResults)
    } on successes (${
      acrossHosts(r.errorResults)
    } on errors: ours carry a code, retryability and a next step) on Claude Code, Codex and ` +
    `Gemini CLI alike; the largest single record is ${times(r.worstRecord.ratio)} the ` +
    `reference's (${r.worstRecord.tool}); through each host: [docs/hosts.md](docs/hosts.md).`,
  ];
}

/** The busy run's company: "8 CPU-bound processes, 4 per core". */
export function burnersText(burners: number, cores: number): string {
  const perCore = Math.round((burners / cores) * 10) / 10;
  return `${burners} CPU-bound processes, ${perCore} per core`;
}

/** The README's line on how long the test command took, quiet and busy. */
export function testTimeLine(run: BenchRun): string[] {
  const t = run.testSuite;
  const m = run.machine;
  const busy = t.busy === null
    ? ""
    : `, and ${duration(t.busy.seconds)} beside ${burnersText(t.busy.burners, m.cores)} (` +
      `${t.busy.passed} passed, ${t.busy.failed} failed)`;
  return [
    `In a fresh clone the test command took ${duration(t.seconds)} here (${m.os}/${m.arch}, ` +
    `${m.cores} cores; ${t.passed} passed, ${t.failed} failed)${busy}; \`${t.command}\` timed ` +
    `by \`deno task bench\` on ${t.date}.`,
  ];
}

/** README.md with the bench's blocks rendered from `run`. */
export function withBenchBlocks(readme: string, run: BenchRun): string {
  return withSection(
    withSection(readme, "bench-summary", benchSummary(run)),
    "test-time",
    testTimeLine(run),
  );
}

/** The table, padded as `deno fmt` would. */
function table(run: BenchRun): string {
  const header: [string, string, string, string] = [
    "measure",
    "portreeve-mcp",
    "ratio (same run)",
    "target",
  ];
  const all = [header, ...run.rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r: readonly string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...run.rows.map(line)].join("\n");
}

function testSuiteNote(run: BenchRun): string {
  const t = run.testSuite;
  const busy = t.busy === null
    ? ""
    : `, and ${duration(t.busy.seconds)} beside ${
      burnersText(t.busy.burners, run.machine.cores)
    } (${t.busy.passed} passed, ${t.busy.failed} failed)`;
  return `\`${t.command}\` in a fresh clone took ${duration(t.seconds)} on ${t.date} ` +
    `(${t.passed} passed, ${t.failed} failed)${busy}; \`BENCH_TEST_SUITE=0\` skips it and ` +
    "keeps that figure, `BENCH_BUSY=0` skips the busy run.";
}

/** docs/performance.md, rendered whole from the run: nothing in it is typed by hand. */
export function performanceDoc(run: BenchRun): string {
  return `# Performance

Generated by \`deno task bench\` on ${run.date} (${
    machineLine(run)
  }, ${run.runs} runs, soak ${run.soak})
from \`${BENCH_JSON}\`. Do not edit: run the bench again.

Every figure is a ratio against a baseline measured in the same run; rows marked "anchor" also
set it beside the reference bridge's figures recorded once on another machine
(\`tests/fixtures/reference-measurements.json\`), which the README does not quote. Byte counts
of the reference's results come from its recorded session (\`tests/fixtures/reference_results.json\`),
its tools/list from its recorded catalogue served in the same run. The bench never asserts a
time; the test suites hold sizes, the host suite (\`deno task test:hosts\`) the context each
host sends its model.

${table(run)}

- **Cold start and memory**: spawn → \`initialize\` → \`tools/list\` for the bridge (source
  and bundle) against the SDK's own \`serveStdio\` with no tools, run the same way, round-robin
  so drift hits every program alike.
- **Per call**: health and ports_list through MCP, alternating call by call with the same
  request sent straight to the socket and with the SDK call floor (\`serveStdio\` with one tool
  that forwards the request unvalidated, \`scripts/bench/sdk_call_floor.ts\`).
- **Soak**: resident memory before and after a long run of mixed calls.
- **Host not reading**: the floods of \`tests/load/memory_test.ts\`, run the same way
  (fewer ~1 MiB calls: \`BENCH_LARGE_FLOOD\`).
- **Credential scrubber**: \`scripts/bench/scrub.ts\`, the scan of every stdout frame against
  \`JSON.stringify\` of the same frames.
- **tools/list**: the bytes of the listing, and the part every host shows its model (names,
  descriptions, input schemas). Output schemas declare every field of every record; only
  Codex's code mode reads them.
- **Results**: each result as each host shows its model (\`tests/support/host_views.ts\`: on
  success Claude Code and Codex show \`structuredContent\` as JSON and Gemini CLI the text block,
  which holds the same JSON; on error Claude Code the text, Codex the text when there is no
  \`structuredContent\`, Gemini CLI, which gets its errors unflagged, the text) for the recorded
  session of the reference bridge, replayed against a fresh simulator by
  \`tests/support/result_scenario.ts\` with roots as long as the recorded ones; successes where
  both bridges succeeded, errors where both refused. The reference's results carry no
  \`isError\`, so every host shows one copy of their JSON. Compact results lose nothing: see
  [results.md](results.md#what-a-result-leaves-out). The last row pages 200 live ports both ways.
- **Code mode**: \`scripts/bench/code_mode.ts\` renders every tool as Codex 0.171.0's code mode
  does (description, instructions, a TypeScript declaration of input and output); the
  reference's figure was measured in the real host (\`deno task test:hosts\` measures ours).
- **Test command**: ${testSuiteNote(run)}
- \`PORTREEVE_LIVE_SOCKET=… deno task bench\` adds per-call rows against a real daemon.
`;
}
