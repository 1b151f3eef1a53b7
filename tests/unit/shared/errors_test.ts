/**
 * One error vocabulary. Every `portreeve_…` word in src/ is either an error code, written
 * once in `Codes` (src/shared/errors.ts) and everywhere else by name (`Codes.notFound`), or
 * the whole name of a tool of the catalogue. Comments may speak of codes; literals may not.
 * So a code spelled by hand anywhere, or a tool name that names no tool, fails here with its
 * file and line.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { Codes } from "../../../src/shared/errors.ts";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { sourceFiles, tokenise } from "../../support/source_text.ts";

const SRC = fileURLToPath(new URL("../../../src/", import.meta.url));
const CODES_MODULE = "shared/errors.ts";
const WORD = /\bportreeve_[a-z0-9_]*[a-z0-9]/g;

const codes = new Set<string>(Object.values(Codes));
const tools = new Set(ALL_TOOLS.map((tool) => tool.name));

/** What is wrong with `word` found in a literal of `file`, or undefined when nothing is. */
export function misuse(file: string, word: string): string | undefined {
  if (file === CODES_MODULE) {
    return codes.has(word) ? undefined : `${word} is spelled in ${CODES_MODULE} but not in Codes`;
  }
  if (codes.has(word)) return `${word} is an error code: write it by name (Codes.…)`;
  return tools.has(word) ? undefined : `${word} names no tool and no error code`;
}

/** `portreeve_…` words in the literals of a source text, with their lines. */
export function literalWords(text: string): { word: string; line: number }[] {
  const { code, strings } = tokenise(text);
  const found: { word: string; line: number }[] = [];
  for (const match of code.matchAll(/(["'`])#(\d+)\1/g)) {
    const line = code.slice(0, match.index).split("\n").length;
    for (const word of strings[Number(match[2])].match(WORD) ?? []) found.push({ word, line });
  }
  return found;
}

Deno.test("every portreeve_ word in src/ is a code written in Codes, or a tool's whole name", async () => {
  const wrong: string[] = [];
  let seen = 0;
  for (const file of await sourceFiles(SRC)) {
    for (const { word, line } of literalWords(await Deno.readTextFile(`${SRC}${file}`))) {
      seen++;
      const why = misuse(file, word);
      if (why !== undefined) wrong.push(`src/${file}:${line}: ${why}`);
    }
  }
  assert.ok(seen > 100, `read ${seen} words`);
  assert.deepEqual(wrong, []);
});

Deno.test("the vocabulary walk refuses what it should", () => {
  assert.deepEqual(literalWords('// see portreeve_not_found\nconst a = "x";'), []);
  assert.deepEqual(
    literalWords("const a = `call portreeve_port_inspect ${b}`;").map((w) => w.word),
    [
      "portreeve_port_inspect",
    ],
  );
  assert.match(misuse("custody/errors.ts", "portreeve_not_found") ?? "", /write it by name/);
  assert.match(misuse("catalogue/x.ts", "portreeve_claim_gett") ?? "", /names no tool/);
  assert.match(misuse(CODES_MODULE, "portreeve_claim_get") ?? "", /not in Codes/);
  assert.equal(misuse("catalogue/x.ts", "portreeve_claim_get"), undefined);
  assert.equal(misuse(CODES_MODULE, "portreeve_not_found"), undefined);
});
