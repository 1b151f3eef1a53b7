import assert from "node:assert/strict";
import { withErrorTables } from "../../../scripts/error_docs.ts";

/** `deno fmt` pads markdown tables; compare the text, not the padding. */
const normalise = (text: string) =>
  text.replace(/-{3,}/g, "---").replace(/[ \t]+/g, " ").replace(/\n(\s*\n)+/g, "\n");

Deno.test("docs/errors.md's code tables are src/shared/error_codes.ts (run `deno task gen`)", async () => {
  const doc = await Deno.readTextFile(new URL("../../../docs/errors.md", import.meta.url));
  assert.equal(normalise(doc), normalise(withErrorTables(doc)));
});
