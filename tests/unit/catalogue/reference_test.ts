import assert from "node:assert/strict";
import { withReference } from "../../../src/catalogue/reference.ts";
import { normaliseMarkdown, withLimitTables } from "../../../scripts/limits_doc.ts";

/** `deno fmt` pads markdown tables; compare the text, not the padding. */
const normalise = (text: string) =>
  text.replace(/-{3,}/g, "---").replace(/[ \t]+/g, " ").replace(/\n(\s*\n)+/g, "\n");

Deno.test("README tool reference is derived from the definitions (run `deno task gen`)", async () => {
  const readme = await Deno.readTextFile(new URL("../../../README.md", import.meta.url));
  assert.equal(normalise(readme), normalise(withReference(readme)));
});

Deno.test("docs/limits.md tables are derived from the declared bounds (run `deno task gen`)", async () => {
  const doc = await Deno.readTextFile(new URL("../../../docs/limits.md", import.meta.url));
  assert.equal(normaliseMarkdown(doc), normaliseMarkdown(withLimitTables(doc)));
});
