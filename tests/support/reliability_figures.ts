/**
 * The figures of the reliability suite, declared once. Each test that measures something calls
 * `reportFigure` with what it measured: the figure is printed as one `reliability-figure {json}`
 * line, and with RELIABILITY_UPDATE_DOCS=1 written as a row of docs/reliability.md's figures
 * table (`deno task test:reliability` with it set rewrites every row its tests reach).
 *
 * What a figure asserts is written here from RELIABILITY_BOUNDS, the same constants the tests
 * assert with, and a unit test holds docs/reliability.md's rows to these declarations: a
 * bound changed in code but not in the document fails there.
 */
import { sectionOf, withSection, writeFormatted } from "../../scripts/doc_blocks.ts";

/** Bounds the reliability tests assert; the tests import them from here. */
export const RELIABILITY_BOUNDS = {
  /** Peak RSS (VmHWM) of one bridge process under any load or flood. */
  peakRssMiB: 150,
  /** RSS a bridge returns under once a flood has drained… */
  drainedRssMiB: 100,
  /** …within this long. */
  drainedWithinMs: 10_000,
  /** RSS growth over the soak, after its warm-up. */
  soakGrowth: 0.10,
  /** From the host's death to the bridge's exit. */
  hostDeathExitMs: 1_000,
  /** From stdin's end, with cancelled requests behind it, to the bridge's exit. */
  eofExitMs: 450,
  /** Daemon connections open at once under a pipelining host. */
  daemonConnections: 32,
} as const;

const B = RELIABILITY_BOUNDS;
const peak = `peak RSS ≤ ${B.peakRssMiB} MiB`;
const drained = (after: string) =>
  `${peak}; under ${B.drainedRssMiB} MiB within ${B.drainedWithinMs / 1000} s of ${after}; ` +
  "each request answered once";

/** Every figure: the test that measures it and what that test asserts about it. */
export const FIGURES = {
  "bad frames": {
    test: "fuzz_test.ts",
    asserted: "a well-formed answer to each; stdout carries frames only; the bridge lives",
  },
  "over-long string inputs": {
    test: "fuzz_test.ts",
    asserted: "`portreeve_invalid_input` naming the field; none reaches the daemon",
  },
  "concurrent burst, then sequential calls": {
    test: "flood_test.ts",
    asserted: `each answered once and correctly; ${peak}`,
  },
  "soak": {
    test: "soak_test.ts",
    asserted: `RSS growth after the warm-up ≤ ${B.soakGrowth * 100}%; each answered once`,
  },
  "host reading nothing": {
    test: "memory_test.ts",
    asserted: drained("draining"),
  },
  "slow daemon, host reading nothing": {
    test: "memory_test.ts",
    asserted: drained("the last answer"),
  },
  "heavy frames, host reading nothing": {
    test: "memory_test.ts",
    asserted: drained("draining"),
  },
  "requests unread, then drained": {
    test: "bounds_test.ts",
    asserted: `${peak}; each answered once`,
  },
  "pipelined calls": {
    test: "bounds_test.ts",
    asserted: `≤ ${B.daemonConnections} daemon connections at once; ${peak}; all correct`,
  },
  "out of file descriptors": {
    test: "bounds_test.ts",
    asserted: "`portreeve_bridge_resource_limit` or success, never `portreeve_unavailable`",
  },
  "credentials, whole scenario at debug level": {
    test: "credentials_test.ts",
    asserted: "no 12-character window of any secret on stdout or stderr",
  },
  "credentials, hostile daemon": {
    test: "credentials_test.ts",
    asserted: "no 12-character window of any secret on stdout or stderr, whatever the split",
  },
  "host death": {
    test: "host_death_test.ts",
    asserted: `bridge gone within ${B.hostDeathExitMs / 1000} s; no daemon request after`,
  },
  "stdin closed behind cancelled requests": {
    test: "cancellation_test.ts",
    asserted: `exit 0 within ${B.eofExitMs} ms`,
  },
  "identical calls at once": {
    test: "single_flight_test.ts",
    asserted: "one daemon request per burst, its result shared",
  },
  "many agents on one slow daemon": {
    test: "many_agents_test.ts",
    asserted:
      "no lease reported held once expired; each kept three TTLs or its lapse told by then; no result after a lapse silent about it; no port held twice; every call answered once; no `portreeve_internal`",
  },
  "a crowd on one slow daemon": {
    test: "crowd_test.ts",
    asserted:
      "every read answered with data, none unavailable; every acquire a definite outcome; progress heard while waiting; no `portreeve_internal`",
  },
} as const satisfies Record<string, { test: string; asserted: string }>;
export type FigureId = keyof typeof FIGURES;

export const FIGURES_DOC = "docs/reliability.md";
export const FIGURES_BLOCK = "reliability-figures";
const HEADER = [
  "| Figure | Test | Asserted | Last measured | On |",
  "| --- | --- | --- | --- | --- |",
];

/** A table row split into its cells (escaped pipes kept inside their cell). */
export function cells(row: string): string[] {
  return row.trim().replace(/^\||\|$/g, "").split(/(?<!\\)\|/).map((cell) => cell.trim());
}

/** The figures table's rows in `doc`, as cells, header and separator left out. */
export function figureRows(doc: string): string[][] {
  const block = sectionOf(doc, FIGURES_BLOCK) ?? "";
  return block.split("\n").filter((line) => line.startsWith("|")).slice(2).map(cells);
}

/** The figure a row's first cell names: its id, and the case after it in parentheses. */
export function figureOf(name: string): FigureId | undefined {
  const id = name.replace(/ \(.*\)$/, "");
  return id in FIGURES ? id as FigureId : undefined;
}

const escape = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** `doc` with the row of `id` (and `subject`, when one figure has several) set to `measured`. */
export function withFigure(
  doc: string,
  id: FigureId,
  subject: string | undefined,
  measured: string,
  date: string,
): string {
  const name = subject === undefined ? id : `${id} (${subject})`;
  const row = [name, `\`${FIGURES[id].test}\``, FIGURES[id].asserted, measured, date];
  const rows = figureRows(doc).filter((cells) => cells[0] !== escape(name));
  rows.push(row.map(escape));
  // Declaration order, then the order rows were first written in.
  const order = Object.keys(FIGURES);
  const rank = (cells: string[]) => order.indexOf(figureOf(cells[0]) ?? "");
  const sorted = rows.map((cells, index) => ({ cells, index }))
    .sort((a, b) => rank(a.cells) - rank(b.cells) || a.index - b.index)
    .map(({ cells }) => `| ${cells.join(" | ")} |`);
  return withSection(doc, FIGURES_BLOCK, [...HEADER, ...sorted]);
}

/**
 * Prints one measured figure and, with RELIABILITY_UPDATE_DOCS=1, writes it into
 * docs/reliability.md. Tests run one at a time within a `deno test` run, so the
 * read-modify-write of the document does not race.
 */
export async function reportFigure(
  id: FigureId,
  measured: string,
  subject?: string,
): Promise<void> {
  console.log(`reliability-figure ${JSON.stringify({ id, subject, measured })}`);
  if (Deno.env.get("RELIABILITY_UPDATE_DOCS") !== "1") return;
  const url = new URL(`../../${FIGURES_DOC}`, import.meta.url);
  const date = new Date().toISOString().slice(0, 10);
  await writeFormatted(url, withFigure(await Deno.readTextFile(url), id, subject, measured, date));
}
