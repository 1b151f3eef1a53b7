/**
 * CONTRIBUTING.md's recipe for adding a tool stays true: every definition a family file under
 * src/catalogue/tools/ exports spells its whole name in its own file, is named in the test file
 * that mirrors it (tests/unit/architecture/mirror_test.ts holds every file to having one) and
 * has its place in TOOL_ORDER, the one list of tools (every file is imported here, so a new
 * family file needs registering nowhere else); and what the recipe names (files, tasks)
 * exists. Failures name the tool.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import config from "../../../deno.json" with { type: "json" };
import { TOOL_ORDER } from "../../../src/catalogue/index.ts";
import { type AnyTool, isToolDefinition } from "../../../src/catalogue/define.ts";
import { sourceFiles } from "../../support/source_text.ts";

const ROOT = new URL("../../../", import.meta.url);
const TOOLS = fileURLToPath(new URL("src/catalogue/tools/", ROOT));
const TESTS = fileURLToPath(new URL("tests/unit/catalogue/tools/", ROOT));
const read = (path: string) => Deno.readTextFile(path);
const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

/** Each family file (relative to src/catalogue/tools/) with the definitions it exports. */
const families: { file: string; tools: AnyTool[] }[] = [];
for (const file of await sourceFiles(TOOLS)) {
  const module: Record<string, unknown> = await import(`${TOOLS}${file}`);
  families.push({ file, tools: Object.values(module).filter(isToolDefinition) });
}

const testOf = (file: string) => `${TESTS}${file.replace(/\.ts$/, "_test.ts")}`;

for (const { file, tools } of families) {
  for (const tool of tools) {
    Deno.test(`${tool.name}: whole name in ${file}, named by its test, placed in TOOL_ORDER`, async () => {
      assert.ok((await read(`${TOOLS}${file}`)).includes(`"${tool.name}"`), `name in ${file}`);
      assert.ok((await read(testOf(file))).includes(`"${tool.name}"`), `named in its test`);
      assert.ok(TOOL_ORDER.includes(tool), "placed in TOOL_ORDER (src/catalogue/index.ts)");
    });
  }
}

Deno.test("every tool in TOOL_ORDER is exported by a family file, each once, each name once", () => {
  const exported = new Set(families.flatMap((family) => family.tools));
  assert.deepEqual(TOOL_ORDER.filter((tool) => !exported.has(tool)).map((tool) => tool.name), []);
  assert.equal(new Set(TOOL_ORDER).size, TOOL_ORDER.length, "each tool once");
  const names = TOOL_ORDER.map((tool) => tool.name);
  assert.equal(new Set(names).size, names.length, "each name once");
});

Deno.test("CONTRIBUTING.md names files that exist and tasks that deno.json has", async () => {
  const text = await read(fileURLToPath(new URL("CONTRIBUTING.md", ROOT)));
  const paths = [...text.matchAll(/`((?:src|tests|docs)\/[^`<>…]+?)`/g)].map((m) => m[1]);
  assert.ok(paths.length >= 10, `${paths.length} paths named`);
  const absent = [];
  for (const path of paths) {
    if (!await exists(fileURLToPath(new URL(path, ROOT)))) absent.push(path);
  }
  assert.deepEqual(absent, [], "paths CONTRIBUTING.md names that do not exist");
  const tasks = [...text.matchAll(/`deno task ([a-z:]+)`/g)].map((m) => m[1]);
  for (const task of ["gen", "check", "test"]) assert.ok(tasks.includes(task), task);
  const known = Object.keys(config.tasks);
  assert.deepEqual(tasks.filter((task) => !known.includes(task)), [], "tasks deno.json lacks");
});

Deno.test("CONTRIBUTING.md's recipe starts every kind of tool, the direct consequential one too", async () => {
  const text = await read(fileURLToPath(new URL("CONTRIBUTING.md", ROOT)));
  const recipe = text.slice(text.indexOf("## Adding a tool"), text.indexOf("## Errors"));
  const kinds = new Set(families.flatMap((family) => family.tools.map((tool) => tool.kind)));
  for (const kind of kinds) assert.ok(recipe.includes(`kind: "${kind}"`), `the recipe for ${kind}`);
  for (const helper of ["readTool", "pagedReadTool", "mutate", "previewTool", "executeTool"]) {
    assert.ok(recipe.includes(`\`${helper}\``), helper);
  }
  assert.match(recipe, /`obtainInputApproval`/, "how a direct consequential call asks");
  assert.match(recipe, /`dependsOn`/, "how an input value is declared consequential");
});
