/**
 * Context budgets: what the model pays for the catalogue, in bytes of name + description +
 * compact-JSON input schema, and the whole tools/list entries. Declaring
 * `additionalProperties: false` on every strict input object (74 of them) costs about 2.1 KB
 * model-visible; the budgets below were raised by that much and no more.
 */
import assert from "node:assert/strict";
import listing from "../../src/catalogue/tools_list.json" with { type: "json" };

type Entry = { kind: string; tool: { name: string; description: string; inputSchema: unknown } };
const tools = listing.tools as unknown as Entry[];
const FIRST = [
  "portreeve_diagnostics",
  "portreeve_compatibility",
  "portreeve_health",
  "portreeve_settings_get",
];
const visible = (entries: Entry[]) =>
  entries.reduce(
    (n, e) =>
      n + e.tool.name.length + e.tool.description.length +
      JSON.stringify(e.tool.inputSchema).length,
    0,
  );

Deno.test("18 inspection tools stay under 7.2 KB model-visible", () => {
  const read = tools.filter((e) => e.kind === "read" && !FIRST.includes(e.tool.name));
  assert.equal(read.length, 18);
  assert.ok(visible(read) < 7200, `${visible(read)} bytes`);
});

Deno.test("15 coordination tools stay under 10 KB model-visible", () => {
  const mutations = tools.filter((e) => e.kind === "mutation");
  assert.equal(mutations.length, 15);
  assert.ok(visible(mutations) < 10_000, `${visible(mutations)} bytes`);
});

Deno.test("14 preview/execute tools stay under 7 KB model-visible", () => {
  const receipts = tools.filter((e) => e.kind === "preview" || e.kind === "execute");
  assert.equal(receipts.length, 14);
  assert.ok(visible(receipts) < 7000, `${visible(receipts)} bytes`);
});

Deno.test("the full tools/list stays under 62 KB, 24 KB model-visible", () => {
  assert.equal(tools.length, 51);
  const total = JSON.stringify(tools.map((e) => e.tool)).length;
  assert.ok(total < 62 * 1024, `${total} bytes`);
  assert.ok(visible(tools) < 24 * 1024, `${visible(tools)} bytes`);
});
