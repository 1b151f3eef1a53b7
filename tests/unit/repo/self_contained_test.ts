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
  const inside = (path: string) => !relative(ROOT, resolve(dirname(file), path)).startsWith("..");
  // A quoted path that stays inside the clone (src/shared/ seen from a sibling room) is fine.
  const rest = line.replace(CLIMBING, (quoted, path: string) => inside(path) ? "" : quoted);
  if (WORKPLACE.test(rest)) found.push(line.trim());
  for (const match of line.matchAll(CLIMBING)) {
    if (!inside(match[1])) found.push(match[1]);
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
  const room = join(ROOT, "src", "daemon", "x.ts");
  const sibling = ["..", "shared", "errors.ts"].join("/");
  assert.equal(leavingPaths(room, `import { e } from "${sibling}";`).length, 0);
  assert.equal(leavingPaths(room, `see ${["..", "shared", "design"].join("/")}`).length, 1);
});
