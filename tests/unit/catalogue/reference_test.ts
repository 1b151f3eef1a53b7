/**
 * What `deno task gen` writes into README.md and docs/ is current: the README's command
 * synopsis, toolsets and consequential routes, the tool reference (docs/tools.md), the default
 * views (docs/results.md), the permission flags (docs/confinement.md) and the tables of
 * docs/limits.md.
 */
import assert from "node:assert/strict";
import { withLimitTables } from "../../../scripts/limits_doc.ts";
import { normaliseMarkdown } from "../../../scripts/doc_blocks.ts";
import {
  commandsBlock,
  withConfinementDoc,
  withReadmeBlocks,
  withResultsDoc,
  withToolsDoc,
} from "../../../scripts/gen_docs.ts";
import { toolsetTable } from "../../../src/catalogue/reference.ts";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { programHelp } from "../../../src/cli/main.ts";
import { HOST_IDS } from "../../../src/profiles/hosts.ts";

const read = (path: string) => Deno.readTextFile(new URL(`../../../${path}`, import.meta.url));

const CASES: [string, (doc: string) => string][] = [
  ["README.md", withReadmeBlocks],
  ["docs/tools.md", withToolsDoc],
  ["docs/confinement.md", withConfinementDoc],
  ["docs/results.md", withResultsDoc],
  ["docs/limits.md", withLimitTables],
];

for (const [path, update] of CASES) {
  Deno.test(`${path}: its generated blocks are current (run \`deno task gen\`)`, async () => {
    const doc = await read(path);
    assert.equal(normaliseMarkdown(doc), normaliseMarkdown(update(doc)));
  });
}

Deno.test("the toolset counts are the catalogue's, the largest toolset holding every tool", () => {
  const rows = toolsetTable().slice(2).map((row) => row.split("|").map((cell) => cell.trim()));
  const counts = rows.map((cells) => Number(cells[2]));
  assert.equal(counts.at(-1), ALL_TOOLS.length);
  assert.deepEqual([...counts].sort((a, b) => a - b), counts, "each toolset holds the one before");
});

Deno.test("the README's synopsis is the program's own help, from its usage lines on", () => {
  const block = commandsBlock().join("\n");
  assert.ok(programHelp(HOST_IDS).endsWith(block.replace(/^```text\n|\n```$/g, "")));
});
