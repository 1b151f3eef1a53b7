/**
 * The README and docs/ as documents: the README stays a short user guide, every generated block
 * is declared with its writer (scripts/doc_blocks.ts), prose types no count the catalogue owns
 * and no ratio the bench owns, the figures prose does state match the code, and every relative
 * link resolves.
 */
import assert from "node:assert/strict";
import {
  GENERATED_BLOCKS,
  GENERATED_FILES,
  markerNames,
  withoutSections,
} from "../../../scripts/doc_blocks.ts";
import {
  LINE_MARK,
  MAX_PARTS,
  QUESTION_GUIDE,
  QUESTION_HEADER,
  QUESTION_MAX,
} from "../../../src/catalogue/question.ts";
import { RENEW_CEILING_MS } from "../../../src/custody/cadence.ts";
import { DOCTOR_EXIT } from "../../../src/cli/doctor.ts";
import { README_MAX_LINES } from "../../support/budgets.ts";

const ROOT = new URL("../../../", import.meta.url);
/** `deno fmt`'s line width (deno.json); tables and generated text may be wider. */
const LINE_WIDTH = 100;

async function readDocs(): Promise<Map<string, string>> {
  const docs = new Map([["README.md", await Deno.readTextFile(new URL("README.md", ROOT))]]);
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.name.endsWith(".md")) {
      docs.set(`docs/${entry.name}`, await Deno.readTextFile(new URL(`docs/${entry.name}`, ROOT)));
    }
  }
  return docs;
}
const docs = await readDocs();
/** Documents written by hand (in part): what the prose rules apply to. */
const handWritten = [...docs].filter(([file]) => !(file in GENERATED_FILES));

/** Prose of a document: generated blocks and fenced code left out. */
function prose(text: string): string {
  return withoutSections(text).replace(/^```[\s\S]*?^```$/gm, "");
}

const NUMBER_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty";
/** A count of things the catalogue owns: "51 tools", "seven `*_execute` tools", "60 routes". */
const CATALOGUE_COUNT = new RegExp(
  `\\b(?:\\d[\\d,]*|${NUMBER_WORDS})(?!\\s+of\\b)\\s+(?:[\\w\`*.-]+\\s+){0,2}?` +
    `(?:tools|codes|routes|toolsets|hosts|tasks)\\b(?!/)`,
  "gi",
);
/** A ratio stated as a figure rather than a bound ("0.74×", not "≤ 0.75×" or "at most 1.5×"). */
const MEASURED_RATIO = /(?<![\d.])(?<!(?:≤|<|≥|>|at most|under|within) ?)\d+(?:\.\d+)?×/g;

Deno.test("README: within the budget's lines", () => {
  const lines = docs.get("README.md")!.trimEnd().split("\n").length;
  assert.ok(
    lines <= README_MAX_LINES,
    `README.md has ${lines} lines (at most ${README_MAX_LINES})`,
  );
});

/** Output shown verbatim (`text` fences) keeps its lines; the rest is prose and commands. */
function withoutOutput(text: string): string {
  return text.replace(/^```text$[\s\S]*?^```$/gm, (block) => block.replace(/[^\n]/g, ""));
}

Deno.test("docs: every line of prose and commands fits the formatter's width", () => {
  const wide = handWritten.flatMap(([file, text]) =>
    withoutOutput(withoutSections(text)).split("\n").flatMap((line) =>
      line.length > LINE_WIDTH && !line.startsWith("|") ? [`${file}: ${line.slice(0, 40)}…`] : []
    )
  );
  assert.deepEqual(wide, []);
});

Deno.test("docs: every generated block is declared with its writer, and present once", async () => {
  const problems: string[] = [];
  for (const [file, text] of docs) {
    const declared = Object.keys(GENERATED_BLOCKS[file] ?? {});
    const expected = declared.flatMap((name) => [`${name}:start`, `${name}:end`]);
    const found = markerNames(text);
    for (const marker of found) {
      if (!expected.includes(marker)) problems.push(`${file}: undeclared marker ${marker}`);
    }
    for (const marker of expected) {
      const count = found.filter((m) => m === marker).length;
      if (count !== 1) problems.push(`${file}: ${marker} appears ${count} times`);
    }
  }
  for (const file of [...Object.keys(GENERATED_BLOCKS), ...Object.keys(GENERATED_FILES)]) {
    await Deno.stat(new URL(file, ROOT)).catch(() => problems.push(`${file} is declared, missing`));
  }
  assert.deepEqual(problems, []);
});

Deno.test("docs: prose types no count of tools, codes, routes or hosts (generate it)", () => {
  const typed = handWritten.flatMap(([file, text]) =>
    [...prose(text).matchAll(CATALOGUE_COUNT)].map((m) => `${file}: "${m[0]}"`)
  );
  assert.deepEqual(typed, []);
});

Deno.test("docs: prose states no measured ratio; the bench's are generated", () => {
  const typed = handWritten.flatMap(([file, text]) =>
    [...prose(text).matchAll(MEASURED_RATIO)].map((m) => `${file}: "${m[0]}"`)
  );
  assert.deepEqual(typed, []);
});

Deno.test("docs: the rules above catch what they should", () => {
  const counts = (text: string) => [...text.matchAll(CATALOGUE_COUNT)].length;
  assert.equal(counts("the tools of each toolset offered (22, 37, 51 tools)"), 1);
  assert.equal(counts("the seven `*_execute` tools; one of its routes"), 1);
  assert.equal(counts("implements all 60 protocol routes"), 1);
  assert.equal(counts("32 tool calls run; `deno@2.9.6 task serve`; 1 MiB tools/call"), 0);
  const ratios = (text: string) => [...text.matchAll(MEASURED_RATIO)].length;
  assert.equal(ratios("results came to 0.74× the reference"), 1);
  assert.equal(ratios("≤ 0.75×, at most 1.5× its bytes, 6–10×"), 1);
  assert.equal(
    prose("<!-- x:start -->\n51 tools\n<!-- x:end -->\n```sh\n2 tools\n```\n"),
    "<!-- x:start -->\n<!-- x:end -->\n\n",
  );
});

/** Figures the prose states, each with the constant it must equal. */
const STATED: [file: string, phrase: string][] = [
  ["README.md", `(\`doctor\`: UNAVAILABLE, exit ${DOCTOR_EXIT.unavailable})`],
  ["README.md", `(\`doctor\`: MISCONFIGURED, exit ${DOCTOR_EXIT.misconfigured})`],
  ["docs/approval.md", `at most ${QUESTION_MAX.toLocaleString("en-US")} characters`],
  ["docs/approval.md", `at most ${MAX_PARTS} parts`],
  ["docs/approval.md", `\n${LINE_MARK} ${QUESTION_HEADER}\n${LINE_MARK} ${QUESTION_GUIDE}\n`],
  ["docs/credentials.md", `min(remaining TTL / 3, ${RENEW_CEILING_MS / 1000} s)`],
];

Deno.test("docs: the figures prose states are the code's", () => {
  // White space as `deno fmt` may wrap it.
  const flat = (text: string) => text.replace(/\s+/g, " ");
  const missing = STATED.filter(([file, phrase]) =>
    !flat(docs.get(file) ?? "").includes(flat(phrase))
  );
  assert.deepEqual(missing, [], "stated figures that differ from the code (or moved)");
});

/** GitHub's anchor for a heading. */
function slug(heading: string): string {
  return heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
}

Deno.test("docs: every relative link resolves, anchors included", async () => {
  const broken: string[] = [];
  for (const [file, text] of docs) {
    const base = new URL(file, ROOT);
    for (const [, target] of withoutSections(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [path, anchor] = target.split("#");
      const url = path === "" ? base : new URL(path, base);
      const linked = await Deno.readTextFile(url).catch(() => undefined);
      if (linked === undefined) {
        broken.push(`${file}: ${target}`);
        continue;
      }
      if (anchor === undefined) continue;
      const headings = [...linked.matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1]));
      if (!headings.includes(anchor)) broken.push(`${file}: ${target} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});

Deno.test("docs: every test a document names by file and title exists under that title", async () => {
  const named = /`(tests\/[\w/.-]+_test\.ts)`: "([^"]+)"/g;
  const missing: string[] = [];
  let count = 0;
  for (const [file, text] of docs) {
    for (const [, test, title] of text.matchAll(named)) {
      count++;
      const source = await Deno.readTextFile(new URL(test, ROOT)).catch(() => "");
      if (!source.includes(`"${title}"`)) missing.push(`${file}: ${test}: "${title}"`);
    }
  }
  assert.ok(count >= 7, `docs/credentials.md names its guards' tests (${count} found)`);
  assert.deepEqual(missing, []);
});

Deno.test("docs: every test file a document names by its path exists", async () => {
  const named = /`(tests\/[\w/.-]+_test\.ts)`/g;
  const missing: string[] = [];
  for (const [file, text] of docs) {
    for (const [, test] of text.matchAll(named)) {
      if (!await Deno.stat(new URL(test, ROOT)).then(() => true, () => false)) {
        missing.push(`${file}: ${test}`);
      }
    }
  }
  assert.deepEqual(missing, []);
});
