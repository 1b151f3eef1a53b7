/**
 * A fresh clone must carry everything its code, tests and bench read. This scans every source
 * file for file paths that would leave the repository (relative paths climbing above the
 * root, or this workplace's absolute folders), so data kept beside a checkout can never
 * become a silent dependency again. `.ci/run` also runs the unit tests with reads limited to
 * the clone and the temp dir.
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SCANNED = [".ts", ".json", ".md", ".yml", ".sh"];
const SKIPPED_DIRS = new Set([".git", "dist", "node_modules"]);

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && !SKIPPED_DIRS.has(entry.name)) yield* sourceFiles(path);
    else if (
      entry.isFile && (SCANNED.some((ext) => entry.name.endsWith(ext)) || isCiScript(path))
    ) {
      yield path;
    }
  }
}

function isCiScript(path: string): boolean {
  return relative(ROOT, path) === join(".ci", "run");
}

/** Quoted relative paths that start by climbing: "../x", '../../x', `../x`. */
const CLIMBING = /["'`]((?:\.\.\/)+[^"'`\s]*)["'`]/g;
/** Folders of this workplace that a clone elsewhere does not have. */
const WORKPLACE = /(?:^|[^\w.])(\/work\/|\.\.\/shared\/)/;

/** What in one line of `file` names a path outside the repository. */
export function leavingPaths(file: string, line: string): string[] {
  const found: string[] = [];
  if (WORKPLACE.test(line)) found.push(line.trim());
  for (const match of line.matchAll(CLIMBING)) {
    const target = resolve(dirname(file), match[1]);
    if (relative(ROOT, target).startsWith("..")) found.push(match[1]);
  }
  return found;
}

Deno.test("no source, test, script or document reads a path outside the repository", async () => {
  const found: string[] = [];
  for await (const file of sourceFiles(ROOT)) {
    const lines = (await Deno.readTextFile(file)).split("\n");
    lines.forEach((line, index) => {
      for (const hit of leavingPaths(file, line)) {
        found.push(`${relative(ROOT, file)}:${index + 1}: ${hit}`);
      }
    });
  }
  assert.deepEqual(found, []);
});

Deno.test("the scan catches paths that climb out or name this workplace", () => {
  const file = join(ROOT, "tests", "unit", "x_test.ts");
  const climb = ["..", "..", "..", "elsewhere", "data.json"].join("/");
  assert.equal(leavingPaths(file, `new URL("${climb}", import.meta.url)`).length, 1);
  assert.equal(leavingPaths(file, `read("${["..", "fixtures", "a.json"].join("/")}")`).length, 0);
  assert.equal(leavingPaths(file, ["cat /work", "notes/x"].join("/")).length, 1);
});
