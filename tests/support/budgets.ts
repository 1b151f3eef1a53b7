/**
 * Every size budget `deno task test` holds, declared once: what it measures, its limit and the
 * test that holds it. Those tests take their limits from here, and `deno task gen` writes the
 * table of figures and headroom into CONTRIBUTING.md (its `budgets` block), which
 * tests/unit/results/budget_test.ts keeps current. Figures are measured the way the bench and
 * the host suite measure them: tools/list as served, what each host shows its model, and the
 * reference session replayed in process against the simulator with the recorded session's
 * roots, the daemon's pid and durations written at the recorded widths (so a figure is the same
 * on every run).
 */
import listing from "../../src/catalogue/tools_list.json" with { type: "json" };
import { type ListedTool, readListing } from "../../src/results/listing.ts";
import { envelopeOf } from "../../src/results/result.ts";
import { SERVER_INSTRUCTIONS } from "../../src/catalogue/instructions.ts";
import { codeModeBytes } from "../../scripts/bench/code_mode.ts";
import reference from "../fixtures/reference-catalogue.json" with { type: "json" };
import measurements from "../fixtures/reference-measurements.json" with { type: "json" };
import referenceResults from "../fixtures/reference_results.json" with { type: "json" };
import { byteLength, hostView, sentTo, type ShownResult, VIEW_HOSTS } from "./host_views.ts";
import { APPROVING_HOST } from "./person.ts";

const ROOT = new URL("../../", import.meta.url);

/** The tools shown first, whose descriptions carry the setup: not counted as inspection tools. */
export const FIRST_TOOLS = [
  "portreeve_diagnostics",
  "portreeve_compatibility",
  "portreeve_health",
  "portreeve_settings_get",
];

/** What a model sees of tools in every host: name, description and input schema, in bytes. */
export function modelVisible(entries: readonly ListedTool[]): number {
  return entries.reduce(
    (n, { tool }) =>
      n + byteLength(tool.name) + byteLength(tool.description ?? "") +
      byteLength(JSON.stringify(tool.inputSchema)),
    0,
  );
}

/** The figures that need no daemon: the README and the served tools/list. */
export interface CatalogueFigures {
  readmeLines: number;
  toolsListBytes: number;
  inspection: number;
  coordination: number;
  receipts: number;
  allVisible: number;
  /** The instructions, against the reference's, alone and as Codex's tool_search line. */
  instructions: number;
  instructionsLine: number;
  /** Codex's code mode, per tool, against the reference's per tool (its measured whole). */
  codeModePerTool: number;
}

export async function catalogueFigures(): Promise<CatalogueFigures> {
  const readme = await Deno.readTextFile(new URL("README.md", ROOT));
  const tools = readListing(listing);
  const of = (...kinds: string[]) => tools.filter((entry) => kinds.includes(entry.kind));
  const line = (length: number) => "- mcp__portreeve: ".length + length;
  const instructions = byteLength(SERVER_INSTRUCTIONS);
  const codeMode = codeModeBytes(tools.map((entry) => entry.tool), SERVER_INSTRUCTIONS);
  return {
    readmeLines: readme.trimEnd().split("\n").length,
    toolsListBytes: byteLength(JSON.stringify({ tools: tools.map((entry) => entry.tool) })),
    inspection: modelVisible(of("read").filter((e) => !FIRST_TOOLS.includes(e.tool.name))),
    coordination: modelVisible(of("mutation")),
    receipts: modelVisible(of("preview", "execute")),
    allVisible: modelVisible(tools),
    instructions: instructions / reference.instructionsLength,
    instructionsLine: line(instructions) / line(reference.instructionsLength),
    codeModePerTool: (codeMode / tools.length) /
      (measurements.codeMode.allToolsBytes / reference.tools.length),
  };
}

/** The figures of the reference session's results, ours against the reference's. */
export interface SessionFigures {
  /** Successes summed, ours over the reference's, on the host that shows the most. */
  successes: number;
  /** The largest single-record success against the reference's same step. */
  worstRecord: { tool: string; ratio: number };
  /** Each tool's largest result, in bytes as a host shows it. */
  largest: Map<string, number>;
}

/**
 * The reference session's calls replayed in process against the simulator (as `deno task
 * bench` does), in the default mode with a person who approves, so executes go through; in a
 * temporary folder under /tmp, whatever TMPDIR says: the results quote its paths, and a preview's
 * summary shortens a long one, so the figures hold only for one place (gen and the test alike).
 */
export async function sessionFigures(
  { dir = "/tmp" }: { dir?: string } = {},
): Promise<SessionFigures> {
  const { runResultScenario, scenarioBridge } = await import("./result_scenario.ts");
  const { dir: place, sim, workspace, stackRoot, bridge, close } = await scenarioBridge(
    "prmcp-budget-",
    dir,
  );
  const recorded: [string | RegExp, string][] = [
    [workspace, "/home/dev/work/demo-app"],
    [stackRoot, "/home/dev/work/demo-stack"],
    [place, "/tmp/0123456789abcdef"],
    // The daemon's own pid (this process's, for the simulator) and a run's measured duration.
    [/(\\?"pid\\?":)\d+/g, "$114125"],
    [/(\\?"durationMilliseconds\\?":)\d+/g, "$112"],
  ];
  const asRecorded = (text: string) =>
    recorded.reduce((out, [ours, theirs]) => out.replaceAll(ours, theirs), text);
  const ctx = {
    ...await bridge.services(),
    signal: new AbortController().signal,
    host: APPROVING_HOST,
  };
  const theirs = new Map(referenceResults.calls.map((call) => [call.seq, call]));
  const largest = new Map<string, number>();
  const pairs: { tool: string; ours: number; theirs: number }[] = [];
  try {
    await runResultScenario(async (seq, tool, args) => {
      const result = await bridge.catalogue.call(tool, args, ctx);
      const content = envelopeOf(result) as { ok: boolean; data?: Record<string, unknown> };
      const ours = Math.max(
        ...VIEW_HOSTS.map((host) =>
          byteLength(asRecorded(hostView(host, sentTo(host, result as ShownResult))))
        ),
      );
      largest.set(tool, Math.max(largest.get(tool) ?? 0, ours));
      const recordedStep = theirs.get(seq);
      if (content.ok && recordedStep?.ok && recordedStep.structuredContentBytes > 0) {
        pairs.push({ tool, ours, theirs: recordedStep.structuredContentBytes });
      }
      return content;
    }, { sim, workspace, stackRoot });
  } finally {
    await close();
  }
  const sum = (side: "ours" | "theirs") => pairs.reduce((n, pair) => n + pair[side], 0);
  const records = pairs.filter((pair) => !pair.tool.endsWith("_list"));
  const worst = records.reduce((a, b) => b.ours / b.theirs > a.ours / a.theirs ? b : a);
  return {
    successes: sum("ours") / sum("theirs"),
    worstRecord: { tool: worst.tool, ratio: worst.ours / worst.theirs },
    largest,
  };
}

export type Figures = CatalogueFigures & SessionFigures;

export interface Budget {
  what: string;
  /** The most the figure may be. */
  limit: number;
  unit: "lines" | "B" | "×";
  /** The test file that holds it. */
  test: string;
  figure(figures: Figures): number;
}

const BUDGET_TEST = "tests/unit/results/budget_test.ts";

/**
 * Each tool's largest result, in bytes as a host shows it, for the tools whose results are
 * largest: every value is written unless it is empty or stated elsewhere in the same result,
 * which says so.
 */
export const RESULT_BUDGETS: Readonly<Record<string, number>> = {
  portreeve_history_list: 4250,
  portreeve_stack_status: 2700,
  portreeve_port_reclaim_preview: 1960,
  portreeve_stack_apply_preview: 1660,
  portreeve_activation_begin: 1580,
  portreeve_claim_delete_preview: 1510,
  portreeve_ports_list: 1450,
  portreeve_port_inspect: 1300,
  portreeve_activation_confirm_endpoint: 1020,
  portreeve_activation_end: 1060,
  portreeve_stack_apply_execute: 1100,
};

/**
 * Codex's code mode, per tool against the reference's per tool: held here (over the estimate)
 * and by the host suite (through the real host, tests/hosts/paths_test.ts) alike. Target 0.8×.
 */
export const CODE_MODE_PER_TOOL = 0.99;

/** The README's lines: a newcomer reads it in five minutes. */
export const README_MAX_LINES = 250;

/** A budget `tests/unit/results/budget_test.ts` holds. */
const held = (
  what: string,
  limit: number,
  unit: Budget["unit"],
  figure: Budget["figure"],
): Budget => ({ what, limit, unit, test: BUDGET_TEST, figure });

export const BUDGETS: readonly Budget[] = [
  {
    what: "README.md, lines",
    limit: README_MAX_LINES,
    unit: "lines",
    test: "tests/unit/repo/docs_test.ts",
    figure: (f) => f.readmeLines,
  },
  held("tools/list as served, all tools", 100_000, "B", (f) => f.toolsListBytes),
  held(
    "model-visible (name, description, input schema), every tool",
    24 * 1024,
    "B",
    (f) => f.allVisible,
  ),
  held("model-visible, the reads after the first four", 7200, "B", (f) => f.inspection),
  held("model-visible, the coordination tools", 10_000, "B", (f) => f.coordination),
  held("model-visible, the previews and executes", 7000, "B", (f) => f.receipts),
  held("server instructions, against the reference's", 0.8, "×", (f) => f.instructions),
  held(
    "server instructions as Codex's tool_search line, against the reference's",
    0.8,
    "×",
    (f) => f.instructionsLine,
  ),
  held(
    "Codex code mode per tool, against the reference's per tool (target 0.8×)",
    CODE_MODE_PER_TOOL,
    "×",
    (f) => f.codeModePerTool,
  ),
  held("the reference session's successes, against the reference's", 0.75, "×", (f) => f.successes),
  held(
    "the largest single record of the session, against the reference's",
    1,
    "×",
    (f) => f.worstRecord.ratio,
  ),
  ...Object.entries(RESULT_BUDGETS).map(([tool, limit]) =>
    held(
      `\`${tool}\`'s largest result in the session`,
      limit,
      "B",
      (f) => f.largest.get(tool) ?? Infinity,
    )
  ),
];

const shown = (value: number, unit: Budget["unit"]) =>
  unit === "×" ? `${value.toFixed(3)}×` : `${value.toLocaleString("en-US")} ${unit}`;

/** CONTRIBUTING.md's `budgets` block: each budget, its figure now and its headroom. */
export function budgetTable(figures: Figures): string[] {
  return [
    "| Budget | Limit | Now | Headroom | Held by |",
    "| --- | --- | --- | --- | --- |",
    ...BUDGETS.map((budget) => {
      const now = budget.figure(figures);
      const room = budget.limit - now;
      const percent = `${(100 * room / budget.limit).toFixed(1)} %`;
      return `| ${budget.what} | ${shown(budget.limit, budget.unit)} | ${
        shown(now, budget.unit)
      } | ${shown(room, budget.unit)} (${percent}) | \`${budget.test}\` |`;
    }),
  ];
}
