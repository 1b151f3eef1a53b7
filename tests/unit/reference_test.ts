import assert from "node:assert/strict";
import { withReference } from "../../src/catalogue/reference.ts";

Deno.test("README tool reference is derived from the definitions (run `deno task docs`)", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  assert.equal(readme, withReference(readme));
});
