/**
 * Issue 28's first measure, on every path a host takes: for the full toolset, what our bridge
 * costs the model against the reference bridge's catalogue through the same host, configuration
 * and fake model, at most 0.8× on each path; and tools/list itself at most 100 KB. Where the
 * target cannot be met by any server (Claude Code's deferred names are the reference's names by
 * requirement), the test states the floor and asserts the budget that remains.
 * `HOSTS_UPDATE_DOCS=1` rewrites docs/hosts.md's table of these figures.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { BUNDLE_ENTRY, startBridge } from "../e2e/harness.ts";
import { contextBytes, contextShown } from "./context.ts";
import { claude, codex, geminiCli } from "./hosts.ts";
import {
  bytes,
  CLAUDE_LATEST,
  claudeDeferred,
  codexCodeMode,
  codexSearches,
  loadedBytes,
  searchEntry,
  TYPICAL_SEARCHES,
  upFrontBytes,
} from "./paths.ts";
import { checkDocBlock } from "./report.ts";
import catalogue from "../../src/catalogue/tools_list.json" with { type: "json" };
import { CODE_MODE_PER_TOOL } from "../support/budgets.ts";

/** Issue 28 item 3: every path at most this share of the reference's bytes. */
export const PATH_CEILING = 0.8;
/** Issue 28 item 1: the server instructions' budget. */
export const INSTRUCTIONS_BUDGET = 400;
/** Issue 28 item 3: tools/list, every page, at most this many bytes. */
export const TOOLS_LIST_BUDGET = 100 * 1024;

export interface PathFigure {
  path: string;
  ours: number;
  reference: number;
  /** Where no server can reach the ceiling: the lowest ratio any server could show, and why. */
  floor?: { ratio: number; why: string };
  /**
   * A path held per tool (code mode, as tests/support/budgets.ts holds it): the entries on each
   * side. The ratio is then ours per tool against the reference's per tool, so a new tool no
   * costlier than the reference's average one fits.
   */
  tools?: { ours: number; reference: number };
}

/** The figure's ratio: in total, or per tool where the path is held per tool. */
export function ratioOf(figure: PathFigure): number {
  const [ours, reference] = figure.tools === undefined
    ? [1, 1]
    : [figure.tools.ours, figure.tools.reference];
  return (figure.ours / ours) / (figure.reference / reference);
}

function print(figure: PathFigure): PathFigure {
  const ratio = ratioOf(figure);
  console.log(
    `${figure.path}: ours ${figure.ours} B, reference ${figure.reference} B (${ratio.toFixed(3)}×${
      figure.tools === undefined ? "" : " per tool"
    })` +
      (figure.floor ? `; floor ${figure.floor.ratio.toFixed(3)}×: ${figure.floor.why}` : ""),
  );
  return figure;
}

/**
 * Paths not yet within PATH_CEILING (issue 28 stays open for them): each is held at the ratio
 * measured on 2026-12-02 so it cannot grow while the work goes on, and its gap is printed.
 * Delete an entry once its path is within the ceiling. Code mode is held per tool, at the limit
 * `deno task test` holds over its estimate, so a new tool no costlier than the reference's
 * average one fits (held in total, one such tool pushed the total over while the average stayed).
 */
const NOT_YET_WITHIN: Readonly<Record<string, number>> = {
  codexSearches: 0.85,
  codexCodeMode: CODE_MODE_PER_TOOL,
};

function assertCeiling(figure: PathFigure, key?: string): void {
  const ratio = ratioOf(figure);
  const held = key === undefined ? undefined : NOT_YET_WITHIN[key];
  if (held !== undefined) {
    console.log(
      `${figure.path}: NOT YET within ${PATH_CEILING}× (${ratio.toFixed(3)}×; held at ${held}×)`,
    );
  }
  const ceiling = held ?? PATH_CEILING;
  assert.ok(
    ratio <= ceiling,
    `${figure.path}: ${figure.ours} B is ${ratio.toFixed(3)}× the reference's ` +
      `${figure.reference} B${figure.tools === undefined ? "" : " per tool"}, over ${ceiling}×`,
  );
}

Deno.test("a path held per tool: one more tool no costlier than the reference's average fits", () => {
  // The reference's 51 tools in 69,682 B; ours at 0.979× that, then one tool of its average.
  const average = 69_682 / 51;
  const ours = 0.979 * 69_682 + average;
  const figure = { path: "code mode", ours, reference: 69_682 };
  assert.ok(ratioOf(figure) > CODE_MODE_PER_TOOL, "in total, the new tool goes over");
  const perTool = { ...figure, tools: { ours: 52, reference: 51 } };
  assert.ok(ratioOf(perTool) <= CODE_MODE_PER_TOOL, "per tool, it fits");
  assert.equal(ratioOf({ ...figure, tools: { ours: 51, reference: 51 } }), ratioOf(figure));
});

const LATEST = `Claude Code ${CLAUDE_LATEST.version}`;

/** Each path's figure from the host runs (shared: every run happens once per process). */
const PATHS = {
  claudeWhole: async (): Promise<PathFigure> => ({
    path: `Claude Code ${claude.pkg.version}: definitions + instructions, every request`,
    ours: contextBytes(await contextShown(claude, "ours")),
    reference: contextBytes(await contextShown(claude, "reference")),
  }),
  claudeUpFront: async (): Promise<PathFigure> => {
    const ours = await claudeDeferred("ours");
    const reference = await claudeDeferred("reference");
    // The names alone can be more than the ceiling allows: then no server with these names
    // meets it, and what remains to hold is the instructions' budget.
    const floor = ours.nameBytes / upFrontBytes(reference);
    return {
      path: `${LATEST}: sent up front on every request (deferred names + instructions)`,
      ours: upFrontBytes(ours),
      reference: upFrontBytes(reference),
      floor: floor > PATH_CEILING
        ? {
          ratio: floor,
          why: `the ${ours.names.length} deferred names, the reference's by requirement, are ` +
            `${ours.nameBytes} B of its ${upFrontBytes(reference)} B; ours may add at most ` +
            `${INSTRUCTIONS_BUDGET} B of instructions under their heading`,
        }
        : undefined,
    };
  },
  claudeLoaded: async (): Promise<PathFigure> => ({
    path: `${LATEST}: every tool loaded through ToolSearch (definitions + instructions)`,
    ours: loadedBytes(await claudeDeferred("ours")),
    reference: loadedBytes(await claudeDeferred("reference")),
  }),
  codexClassic: async (): Promise<PathFigure> => ({
    path: `Codex ${codex.pkg.version} classic: namespace description + tool list`,
    ours: contextBytes(await contextShown(codex, "ours")),
    reference: contextBytes(await contextShown(codex, "reference")),
  }),
  codexLine: async (): Promise<PathFigure> => ({
    path: `Codex ${codex.pkg.version} tool_search and code mode: up-front namespace line`,
    ours: bytes((await codexSearches("ours")).namespaceLine ?? ""),
    reference: bytes((await codexSearches("reference")).namespaceLine ?? ""),
  }),
  codexSearches: async (): Promise<PathFigure> => {
    const ours = await codexSearches("ours");
    const reference = await codexSearches("reference");
    // The reference's prose is not kept (filler of its length), so its own ranking finds
    // fewer tools; each search is priced with the tools ours found, as either server renders
    // them.
    let mine = 0;
    let theirs = 0;
    for (const search of ours.outputs) {
      mine += bytes(search.entry);
      theirs += bytes(searchEntry(reference, search.tools));
    }
    return {
      path:
        `Codex ${codex.pkg.version} tool_search: ${TYPICAL_SEARCHES.length} typical 8-tool searches`,
      ours: mine,
      reference: theirs,
    };
  },
  codexCodeMode: async (): Promise<PathFigure> => {
    const ours = (await codexCodeMode("ours")).entries;
    const reference = (await codexCodeMode("reference")).entries;
    return {
      path: `Codex ${codex.pkg.version} code mode: ALL_TOOLS, per tool (${ours.length} entries; ` +
        `the reference's ${reference.length})`,
      ours: bytes(ours),
      reference: bytes(reference),
      tools: { ours: ours.length, reference: reference.length },
    };
  },
  gemini: async (): Promise<PathFigure> => ({
    path: `Gemini CLI ${geminiCli.pkg.version}: definitions + instructions`,
    ours: contextBytes(await contextShown(geminiCli, "ours")),
    reference: contextBytes(await contextShown(geminiCli, "reference")),
  }),
};

for (
  const [key, adapter] of [["claudeWhole", claude], ["codexClassic", codex], [
    "gemini",
    geminiCli,
  ]] as const
) {
  Deno.test(`${adapter.pkg.host} ${adapter.pkg.version}, the whole list: at most ${PATH_CEILING}× the reference's`, async () => {
    assert.equal((await contextShown(adapter, "ours")).definitions.size, 51);
    assertCeiling(print(await PATHS[key]()), key);
  });
}

Deno.test(`${LATEST}, up front: the names are the reference's; instructions within ${INSTRUCTIONS_BUDGET} B`, async () => {
  const ours = await claudeDeferred("ours");
  const reference = await claudeDeferred("reference");
  assert.equal(ours.names.length, 51, "every tool of ours is deferred by name");
  assert.deepEqual(ours.names, reference.names, "the same names as the reference, by requirement");
  const figure = print(await PATHS.claudeUpFront());
  if (figure.floor === undefined) assertCeiling(figure);
  const budget = ours.nameBytes + bytes("## portreeve\n") + INSTRUCTIONS_BUDGET;
  assert.ok(
    figure.ours <= budget,
    `${figure.path}: ${figure.ours} B, over the names' ${ours.nameBytes} B plus ` +
      `${INSTRUCTIONS_BUDGET} B of instructions (${budget} B); the instructions' block is ` +
      `${ours.instructionsBytes} B`,
  );
});

Deno.test(`${LATEST}, every tool loaded through ToolSearch: at most ${PATH_CEILING}×`, async () => {
  const ours = await claudeDeferred("ours");
  const reference = await claudeDeferred("reference");
  assert.equal(ours.loaded.size, 51);
  console.log(
    `${LATEST}: loading every tool also puts ToolSearch's answer in the conversation: ` +
      `${ours.loadAnswerBytes} B vs ${reference.loadAnswerBytes} B (one reference per name)`,
  );
  assertCeiling(print(await PATHS.claudeLoaded()));
});

Deno.test(`Codex tool_search, the up-front namespace line: at most ${PATH_CEILING}×`, async () => {
  const figure = print(await PATHS.codexLine());
  assert.ok(figure.ours > 0 && figure.reference > 0, "both lines shown");
  // The line is "- mcp__portreeve: " and the instructions, cut near 250 characters.
  const room = Math.floor(PATH_CEILING * figure.reference) - bytes("- mcp__portreeve: ");
  assert.ok(
    figure.ours / figure.reference <= PATH_CEILING,
    `${figure.path}: ${figure.ours} B vs ${figure.reference} B; the line fits ${PATH_CEILING}× ` +
      `only with instructions of at most ${room} B (Codex shows their first ~250 characters)`,
  );
});

Deno.test(`Codex tool_search, ${TYPICAL_SEARCHES.length} typical 8-tool searches: at most ${PATH_CEILING}×`, async () => {
  const ours = await codexSearches("ours");
  const reference = await codexSearches("reference");
  assert.equal(ours.catalogue.size, 51);
  assert.equal(reference.catalogue.size, 51);
  for (const search of ours.outputs) {
    assert.equal(search.tools.length, 8, `"${search.query}" found ${search.tools.length} tools`);
    assert.equal(
      bytes(searchEntry(ours, search.tools)),
      bytes(search.entry),
      "rendering is stable",
    );
  }
  assertCeiling(print(await PATHS.codexSearches()), "codexSearches");
});

Deno.test(`Codex code mode, ALL_TOOLS per tool: at most ${PATH_CEILING}× the reference's per tool`, async () => {
  assert.equal((await codexCodeMode("ours")).entries.length, catalogue.tools.length);
  assert.equal((await codexCodeMode("reference")).entries.length, 51);
  assertCeiling(print(await PATHS.codexCodeMode()), "codexCodeMode");
});

Deno.test(`tools/list: at most ${TOOLS_LIST_BUDGET / 1024} KB`, async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-paths-" });
  const bridge = await startBridge({ socketPath: join(dir, "none.sock"), entry: BUNDLE_ENTRY });
  try {
    const listed = await bridge.client.listTools();
    assert.equal(listed.tools.length, 51);
    assert.equal(listed.nextCursor, undefined, "one page");
    const frame = bridge.stdoutFrames().find((line) => line.includes('"tools":[{'));
    assert.ok(frame !== undefined);
    const size = bytes(frame);
    console.log(`tools/list: ${size} B (${(size / 1024).toFixed(1)} KB)`);
    assert.ok(size <= TOOLS_LIST_BUDGET, `tools/list is ${size} B, over ${TOOLS_LIST_BUDGET} B`);
  } finally {
    await bridge.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("docs/hosts.md's table of paths is what the hosts showed", async () => {
  const rows: PathFigure[] = [];
  for (const figure of Object.values(PATHS)) rows.push(await figure());
  await checkDocBlock("docs/hosts.md", "host-paths", pathsTable(rows));
});

export function pathsTable(rows: readonly PathFigure[]): string {
  return [
    "| Path (full toolset) | Reference | Ours | Ratio | Target |",
    "| --- | --- | --- | --- | --- |",
    ...rows.map((row) =>
      `| ${row.path} | ${row.reference.toLocaleString("en-US")} B | ` +
      `${row.ours.toLocaleString("en-US")} B | ${ratioOf(row).toFixed(2)}×` +
      `${row.tools === undefined ? "" : " per tool"} | ` +
      (row.floor
        ? `impossible: floor ${row.floor.ratio.toFixed(2)}× (${row.floor.why})`
        : `≤ ${PATH_CEILING}×`) +
      " |"
    ),
  ].join("\n");
}
