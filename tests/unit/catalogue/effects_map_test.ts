/**
 * The effects map is derived, complete and consistent: docs/effects.md is what `deno task gen`
 * writes, and the README links its gated routes; every route any module declares is in the
 * map; routes declared twice agree; and what hosts are told (annotations) follows the
 * declarations.
 */
import assert from "node:assert/strict";
import { effectsDocument, effectsMap } from "../../../src/catalogue/effects_map.ts";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { describeTool } from "../../../src/results/describe.ts";
import { declaredRoutes } from "../../../src/daemon/routes.ts";
import { canBeConsequential, possibleEffects } from "../../../src/daemon/effects.ts";

/** `deno fmt` pads tables and wraps prose: compare the words, not the white space. */
const normalise = (text: string) => text.replace(/-{3,}/g, "---").replace(/\s+/g, " ");

const read = (path: string) => Deno.readTextFile(new URL(`../../../${path}`, import.meta.url));

Deno.test("docs/effects.md is current (run `deno task gen`), and the README links its gated routes", async () => {
  assert.equal(normalise(await read("docs/effects.md")), normalise(effectsDocument()));
  assert.match(await read("README.md"), /\(docs\/effects\.md#gated-routes\)/);
});

Deno.test("every declared route is in the map, and routes declared twice agree", () => {
  const rows = effectsMap();
  const byRoute = new Map(rows.map((row) => [row.route, row]));
  for (const route of declaredRoutes()) {
    const row = byRoute.get(route.route);
    assert.ok(row, `${route.route} is declared but nothing in the map reaches it`);
    assert.deepEqual(route.effect, row.effect, `${route.route} is declared with two effects`);
  }
  for (const row of rows) {
    assert.ok(row.tools.length + row.others.length > 0, `${row.route} is reached by nothing`);
  }
});

Deno.test("annotations follow the declarations: destructive exactly when an input can reach a consequence", () => {
  for (const tool of ALL_TOOLS) {
    const { annotations } = describeTool(tool);
    const effects = (tool.routes ?? []).flatMap((route) => possibleEffects(route.effect));
    const consequential = (tool.routes ?? []).some((route) => canBeConsequential(route.effect));
    if (tool.kind === "read") {
      assert.ok(effects.every((e) => e.level === "read"), `${tool.name} is a read that writes`);
      assert.equal(annotations?.readOnlyHint, true, tool.name);
      // MCP: beside readOnlyHint, destructiveHint means nothing, so it is left out.
      assert.equal(annotations?.destructiveHint, undefined, tool.name);
    } else {
      assert.equal(annotations?.readOnlyHint, false, tool.name);
      assert.equal(annotations?.destructiveHint, consequential, tool.name);
    }
    if (tool.kind === "execute") assert.ok(consequential, `${tool.name} executes nothing?`);
    if (tool.kind === "preview") assert.ok(!consequential, `${tool.name} acts while previewing`);
  }
  const acquire = describeTool(ALL_TOOLS.find((t) => t.name === "portreeve_lease_acquire")!);
  assert.equal(acquire.annotations?.destructiveHint, true, "its reclaim policies signal processes");
});
