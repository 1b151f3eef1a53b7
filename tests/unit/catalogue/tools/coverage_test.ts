/** Every tool of the catalogue has its scripted-daemon test in this folder, named in it. */
import assert from "node:assert/strict";
import { Catalogue } from "../../../../src/catalogue/catalogue.ts";

Deno.test("every tool is pinned by a scripted-daemon test here", async () => {
  let text = "";
  for await (const entry of Deno.readDir(new URL(".", import.meta.url))) {
    if (entry.name.endsWith("_test.ts") && entry.name !== "coverage_test.ts") {
      text += await Deno.readTextFile(new URL(entry.name, import.meta.url));
    }
  }
  // Receipt pairs name their stem once for both tools.
  const stems = new Set([...text.matchAll(/stem: "([a-z_]+)"/g)].map((m) => m[1]));
  const pinned = (name: string) =>
    text.includes(`"${name}"`) || stems.has(name.replace(/^portreeve_|_(preview|execute)$/g, ""));
  const tools = new Catalogue("full").listing().map((t) => t.name);
  assert.deepEqual(tools.filter((name) => !pinned(name)), [], "tools without a scripted test");
});
