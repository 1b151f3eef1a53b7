/**
 * Tests mirror src/: in the folders below, every source file `src/<path>.ts` has its test file
 * `tests/unit/<path>_test.ts`, so whoever opens a file finds its tests where they expect.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { sourceFiles } from "../../support/source_text.ts";

/** Folders of src/ held to one test file per source file. */
const MIRRORED = ["catalogue/tools", "custody"];

const ROOT = new URL("../../../", import.meta.url);
const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

for (const folder of MIRRORED) {
  Deno.test(`every file of src/${folder}/ has its test in tests/unit/${folder}/`, async () => {
    const files = await sourceFiles(fileURLToPath(new URL(`src/${folder}/`, ROOT)));
    assert.ok(files.length > 0, `src/${folder} has files`);
    const missing = [];
    for (const file of files) {
      const test = `tests/unit/${folder}/${file.replace(/\.ts$/, "_test.ts")}`;
      if (!await exists(fileURLToPath(new URL(test, ROOT)))) missing.push(`src/${folder}/${file}`);
    }
    assert.deepEqual(missing, [], "source files without a test file beside the others");
  });
}
