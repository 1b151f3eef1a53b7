/**
 * Context budgets (tests/support/budgets.ts declares each once): what the model pays for the
 * catalogue, in bytes of name + description + compact-JSON input schema, and the whole
 * tools/list; the instructions and Codex's code mode, on every path that repeats them; and
 * the results of the reference session, summed and largest. Output schemas declare every
 * field of every record (Codex's code mode types a model's programs by them; no host puts them
 * in a model's context otherwise). CONTRIBUTING.md's table of them is current.
 */
import assert from "node:assert/strict";
import { typeOf } from "../../../scripts/bench/code_mode.ts";
import { normaliseMarkdown, sectionOf } from "../../../scripts/doc_blocks.ts";
import {
  BUDGETS,
  budgetTable,
  catalogueFigures,
  type Figures,
  sessionFigures,
} from "../../support/budgets.ts";

const HERE = "tests/unit/results/budget_test.ts";
const figures: Promise<Figures> = Promise.all([catalogueFigures(), sessionFigures()])
  .then(([catalogue, session]) => ({ ...catalogue, ...session }));

for (const budget of BUDGETS.filter((b) => b.test === HERE)) {
  Deno.test(`budget: ${budget.what}, at most ${budget.limit}${budget.unit}`, async () => {
    const now = budget.figure(await figures);
    assert.ok(now <= budget.limit, `${now} > ${budget.limit} ${budget.unit}`);
  });
}

Deno.test("CONTRIBUTING.md's table of budgets is current (run `deno task gen`)", async () => {
  const text = await Deno.readTextFile(new URL("../../../CONTRIBUTING.md", import.meta.url));
  const block = sectionOf(text, "budgets");
  assert.ok(block !== undefined, "CONTRIBUTING.md has a budgets block");
  assert.equal(
    normaliseMarkdown(block),
    normaliseMarkdown(budgetTable(await figures).join("\n")),
  );
});

Deno.test("the code mode estimate spells each $ref out, as Codex does, and a cycle as unknown", () => {
  const schema = {
    type: "object",
    properties: {
      claim: { $ref: "#/$defs/claim" },
      again: { $ref: "#/properties/claim" },
      self: { $ref: "#/$defs/loop" },
    },
    $defs: {
      claim: { properties: { id: { type: "string" } }, required: ["id"] },
      loop: { properties: { next: { $ref: "#/$defs/loop" } } },
    },
  };
  assert.equal(
    typeOf(schema),
    "{ again?: { id: string; }; claim?: { id: string; }; self?: { next?: unknown; }; }",
  );
});
