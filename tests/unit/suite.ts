/**
 * Every unit test file under tests/unit/ but those in OWN_PROCESS, in one test module, in the
 * order of their paths: `deno task test` runs this file, OWN_PROCESS's files and the end-to-end
 * groups (tests/e2e/groups.ts) side by side. A single file still runs on its own
 * (`deno test … tests/unit/x/y_test.ts`).
 */
import { OWN_PROCESS } from "./own_process.ts";

const ROOT = new URL("../../", import.meta.url);

/** The `*_test.ts` files under `dir` (a path from the repository root), sorted. */
export async function testFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) found.push(...await testFiles(`${path}/`));
    else if (entry.name.endsWith("_test.ts")) found.push(path);
  }
  return found.sort();
}

for (const file of await testFiles("tests/unit/")) {
  if (!Object.hasOwn(OWN_PROCESS, file)) await import(new URL(file, ROOT).href);
}
