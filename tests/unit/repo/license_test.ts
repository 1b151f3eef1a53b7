/**
 * The licence is MIT, at the root, and every place a reader or a package manager looks names it:
 * the README, deno.json and (once it exists) package.json.
 */
import assert from "node:assert/strict";
import config from "../../../deno.json" with { type: "json" };

const ROOT = new URL("../../../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, ROOT));

Deno.test("licence: MIT at the root, named by the README and the package metadata", async () => {
  const licence = await read("LICENSE");
  assert.match(licence, /^MIT License\n\nCopyright \(c\) 2026 the portreeve-mcp authors\n/);
  assert.match(licence, /THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND/);
  assert.equal((config as { license?: string }).license, "MIT");
  assert.match(await read("README.md"), /\[MIT licence\]\(LICENSE\)/);
  const npm = await read("package.json").catch(() => null);
  if (npm !== null) assert.equal(JSON.parse(npm).license, "MIT", "package.json says MIT");
});
