/**
 * Every export of a module in src/ is imported by another module of the clone (src/, tests/,
 * scripts/, main.ts): an export nothing takes is either dead or a name that should stay inside
 * its module. Read from the source text (tests/support/source_text.ts): `export` declarations and
 * lists, imports and re-exports by name; a namespace or default import, `export *` and a dynamic
 * `import(…)` take a module whole. Exports in files being reworked on another branch at the time
 * of writing are listed in KNOWN_UNUSED, each with why; an entry that is used again fails too.
 */
import assert from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { sourceFiles, tokenise } from "../../support/source_text.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Exports nothing imports yet, in files another branch is changing now, and why. */
const KNOWN_UNUSED: readonly { why: string; exports: readonly string[] }[] = [
  {
    why: "socket_site.ts is being changed on the socket2 branch (its folder checks); unexport " +
      "PathKind there, or once that branch is merged",
    exports: ["src/shared/socket_site.ts: PathKind"],
  },
];

/** Every name, for a module taken whole. */
const EVERY = "*";

interface ModuleUse {
  /** Names the module exports (its own and re-exported). */
  exports: Set<string>;
  /** Path (from the root) of each module it imports → the names it takes. */
  takes: Map<string, Set<string>>;
}

const DECLARED =
  /\bexport\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|class|const|let|var|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g;
const LIST = /\bexport\s+(?:type\s+)?\{([^}]*)\}(?:\s*from\s*"#(\d+)")?/g;
const STAR = /\bexport\s+\*\s+from\s*"#(\d+)"/g;
const IMPORT = /\bimport\s+(?:type\s+)?([^;"]*?)\s*from\s*"#(\d+)"/g;
const DYNAMIC = /\bimport\s*\(\s*"#(\d+)"\s*\)/g;

/** `a, type b, c as d`: the names on one side of `as`. */
function names(list: string, side: "local" | "exported"): string[] {
  return list.split(",").map((item) => item.trim().replace(/^type\s+/, "")).filter(Boolean)
    .map((item) => {
      const [local, exported] = item.split(/\s+as\s+/);
      return side === "local" ? local : (exported ?? local);
    });
}

/** What module `file` (a path from the root) exports and takes, from its text. */
function moduleUse(file: string, text: string): ModuleUse {
  const { code, strings } = tokenise(text);
  const exports = new Set<string>();
  const takes = new Map<string, Set<string>>();
  const take = (spec: string, taken: string[]) => {
    if (!spec.startsWith(".")) return;
    const path = relative(ROOT, join(dirname(join(ROOT, file)), spec));
    const set = takes.get(path) ?? new Set<string>();
    for (const name of taken) set.add(name);
    takes.set(path, set);
  };
  for (const [, name] of code.matchAll(DECLARED)) exports.add(name);
  for (const [, list, from] of code.matchAll(LIST)) {
    for (const name of names(list, "exported")) exports.add(name);
    if (from !== undefined) take(strings[Number(from)], names(list, "local"));
  }
  for (const [, from] of code.matchAll(STAR)) take(strings[Number(from)], [EVERY]);
  for (const [, clause, from] of code.matchAll(IMPORT)) {
    const braces = /\{([^}]*)\}/.exec(clause);
    const taken = braces ? names(braces[1], "local") : [];
    if (clause.replace(/\{[^}]*\}/, "").replace(/,/g, "").trim() !== "") taken.push(EVERY);
    take(strings[Number(from)], taken);
  }
  for (const [, from] of code.matchAll(DYNAMIC)) take(strings[Number(from)], [EVERY]);
  return { exports, takes };
}

/** `src/` exports no other module takes, as `path: name`. */
function unusedExports(modules: ReadonlyMap<string, ModuleUse>): string[] {
  const unused: string[] = [];
  for (const [path, { exports }] of modules) {
    if (!path.startsWith("src/")) continue;
    const taken = new Set<string>();
    for (const [other, { takes }] of modules) {
      if (other !== path) { for (const name of takes.get(path) ?? []) taken.add(name); }
    }
    if (taken.has(EVERY)) continue;
    for (const name of exports) if (!taken.has(name)) unused.push(`${path}: ${name}`);
  }
  return unused.sort();
}

async function cloneModules(): Promise<Map<string, ModuleUse>> {
  const modules = new Map<string, ModuleUse>();
  for (const dir of ["src", "tests", "scripts"]) {
    for (const file of await sourceFiles(join(ROOT, dir))) {
      const path = `${dir}/${file}`;
      modules.set(path, moduleUse(path, await Deno.readTextFile(join(ROOT, path))));
    }
  }
  modules.set("main.ts", moduleUse("main.ts", await Deno.readTextFile(join(ROOT, "main.ts"))));
  return modules;
}

Deno.test("exports: every export of src/ is imported somewhere, or listed with why", async () => {
  const unused = unusedExports(await cloneModules());
  const known = new Set(KNOWN_UNUSED.flatMap((group) => group.exports));
  assert.deepEqual(unused.filter((entry) => !known.has(entry)), [], "exports nothing imports");
  assert.deepEqual(
    [...known].filter((entry) => !unused.includes(entry)),
    [],
    "listed in KNOWN_UNUSED, but imported now (or gone): take them off the list",
  );
});

Deno.test("exports: the reading sees each form of export and import", () => {
  const exporter = moduleUse(
    "src/x/a.ts",
    [
      "export const a = 1;",
      "export async function b() {}",
      "export interface C {}",
      "export type D = 1;",
      "export class E {}",
      "const f = 1;",
      "export { f as g };",
      'export { h } from "./h.ts";',
      '// export const notCode = 1; "export const inString = 1"',
    ].join("\n"),
  );
  assert.deepEqual([...exporter.exports].sort(), ["C", "D", "E", "a", "b", "g", "h"]);
  assert.deepEqual([...exporter.takes.get("src/x/h.ts")!], ["h"]);
  const importer = moduleUse(
    "tests/y_test.ts",
    [
      'import { a, type C as Sea } from "../src/x/a.ts";',
      'import type {\n  D,\n} from "../src/x/a.ts";',
      'import * as whole from "../src/x/b.ts";',
      'const c = await import("../src/x/c.ts");',
      'import { z } from "zod";',
    ].join("\n"),
  );
  assert.deepEqual([...importer.takes.get("src/x/a.ts")!].sort(), ["C", "D", "a"]);
  assert.deepEqual([...importer.takes.get("src/x/b.ts")!], [EVERY]);
  assert.deepEqual([...importer.takes.get("src/x/c.ts")!], [EVERY]);
  const modules = new Map([["src/x/a.ts", exporter], ["tests/y_test.ts", importer]]);
  assert.deepEqual(unusedExports(modules), [
    "src/x/a.ts: E",
    "src/x/a.ts: b",
    "src/x/a.ts: g",
    "src/x/a.ts: h",
  ]);
});
