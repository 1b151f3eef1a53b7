/**
 * docs/reliability.md states what the reliability tests assert, as they assert it: every row of
 * its figures table (written by the tests with RELIABILITY_UPDATE_DOCS=1) names a declared
 * figure and states that figure's bound, which is written from the constants the tests use;
 * every declared figure has a row; and the hand-written prose states no figure of its own
 * except the two bounds (connecting, and a call in all), which must be the code's.
 */
import assert from "node:assert/strict";
import {
  cells,
  figureOf,
  figureRows,
  FIGURES,
  FIGURES_DOC,
  withFigure,
} from "../../support/reliability_figures.ts";
import { withoutSections } from "../../../scripts/doc_blocks.ts";
import { DEFAULT_CONNECT_MS } from "../../../src/daemon/client.ts";
import { DEFAULT_DAEMON_WAIT_MS } from "../../../src/shared/options.ts";

const doc = await Deno.readTextFile(new URL(`../../../${FIGURES_DOC}`, import.meta.url));
/** Cells as the table shows them: escaped pipes unescaped. */
const shown = (cell: string) => cell.replace(/\\\|/g, "|");

Deno.test("reliability figures: every row is a declared figure stating its test's bound", () => {
  const rows = figureRows(doc);
  const wrong = rows.flatMap((row) => {
    const id = figureOf(shown(row[0]));
    if (id === undefined) return [`"${row[0]}" is no declared figure`];
    const problems = [];
    if (shown(row[1]) !== `\`${FIGURES[id].test}\``) problems.push(`${row[0]}: test ${row[1]}`);
    if (shown(row[2]) !== FIGURES[id].asserted) {
      problems.push(`${row[0]}: states "${row[2]}", the test asserts "${FIGURES[id].asserted}"`);
    }
    return problems;
  });
  assert.deepEqual(wrong, [], "run RELIABILITY_UPDATE_DOCS=1 deno task test:reliability");
  const missing = Object.keys(FIGURES).filter((id) =>
    !rows.some((row) => figureOf(shown(row[0])) === id)
  );
  assert.deepEqual(missing, [], "declared figures with no row");
});

Deno.test("reliability figures: a row is written where its figure belongs, and replaced in place", () => {
  const start = "<!-- reliability-figures:start -->\n<!-- reliability-figures:end -->";
  let text = withFigure(start, "soak", undefined, "1.0% | twice", "2026-01-01");
  text = withFigure(text, "bad frames", undefined, "900 frames", "2026-01-01");
  text = withFigure(text, "host death", "parent closes stdin", "gone after 3 ms", "2026-01-01");
  text = withFigure(text, "soak", undefined, "2.0%", "2026-01-02");
  const rows = figureRows(text);
  assert.deepEqual(rows.map((row) => row[0]), [
    "bad frames",
    "soak",
    "host death (parent closes stdin)",
  ]);
  assert.deepEqual(rows[1].slice(3), ["2.0%", "2026-01-02"]);
  assert.deepEqual(cells("| a \\| b | c |"), ["a \\| b", "c"]);
});

/** Words with digits the prose may use: identifiers, not figures. */
const IDENTIFIERS = [/HTTP \d{3}(?:(?:, | or )\d{3})*/g, /HTTP \dxx/g, /UTF-8/g, /\bV8\b/g];

Deno.test("docs/reliability.md: prose states no figure but the bridge's two bounds", () => {
  const deadlines = `${DEFAULT_CONNECT_MS / 1000} s to connect, ${
    DEFAULT_DAEMON_WAIT_MS / 60_000
  } min per call`;
  assert.ok(doc.includes(deadlines), `the bounds are stated as the bridge's: ${deadlines}`);
  let prose = withoutSections(doc).replace(/`[^`]*`/g, "").replace(/\]\([^)]*\)/g, "]")
    .replace(deadlines, "");
  for (const identifier of IDENTIFIERS) prose = prose.replace(identifier, "");
  const figures = prose.split("\n").filter((line) => /\d/.test(line));
  assert.deepEqual(figures, [], "figures belong in the generated table, or bound to a constant");
});
