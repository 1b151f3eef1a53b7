import assert from "node:assert/strict";
import { withReference } from "../../../src/catalogue/reference.ts";

/** `deno fmt` pads markdown tables; compare the text, not the padding. */
const normalise = (text: string) =>
  text.replace(/-{3,}/g, "---").replace(/[ \t]+/g, " ").replace(/\n(\s*\n)+/g, "\n");

Deno.test("README tool reference is derived from the definitions (run `deno task gen`)", async () => {
  const readme = await Deno.readTextFile(new URL("../../../README.md", import.meta.url));
  assert.equal(normalise(readme), normalise(withReference(readme)));
});
