/**
 * What hosts are told about a tool is derived, and each derived claim is checked here against
 * what the definitions declare, so a new tool cannot make one silently untrue:
 *
 * - `readOnlyHint`: a read, and only a read, whose every route only reads;
 * - `destructiveHint`: exactly when some input can reach a consequential effect;
 * - `idempotentHint` (true for every tool): a repeat never acts twice — every route that
 *   changes state declares the read that settles a lost answer, an execute is keyed by its
 *   receipt (a repeat replays it), and a family that defines a state-changing call settles it
 *   once per key (`ctx.memory`);
 * - the effects map's gate column: a consequential route reached by an execute is gated by its
 *   receipt (the execute takes `receiptId`); reached by any other tool, by asking the person
 *   before sending (`obtainInputApproval` in that tool's family file).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { z } from "zod";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { type AnyTool, isToolDefinition } from "../../../src/catalogue/define.ts";
import { effectsDocument } from "../../../src/catalogue/effects_map.ts";
import { describeTool } from "../../../src/results/describe.ts";
import { canBeConsequential, possibleEffects } from "../../../src/daemon/effects.ts";
import { sourceFiles } from "../../support/source_text.ts";

const TOOLS = fileURLToPath(new URL("../../../src/catalogue/tools/", import.meta.url));

/**
 * Each tool with the text of the family file that defines it and of the files beside it that
 * the family imports (lease_acquire's gate lives in acquire_gate.ts).
 */
const familyText = new Map<AnyTool, string>();
for (const file of await sourceFiles(TOOLS)) {
  const own = await Deno.readTextFile(`${TOOLS}${file}`);
  const folder = file.slice(0, file.lastIndexOf("/") + 1);
  const beside = [...own.matchAll(/from "\.\/([\w/]+\.ts)"/g)].map((m) =>
    `${TOOLS}${folder}${m[1]}`
  );
  const text = [own, ...await Promise.all(beside.map((path) => Deno.readTextFile(path)))].join(
    "\n",
  );
  const module: Record<string, unknown> = await import(`${TOOLS}${file}`);
  for (const tool of Object.values(module).filter(isToolDefinition)) familyText.set(tool, text);
}

const changesState = (tool: AnyTool) =>
  (tool.routes ?? []).filter((route) =>
    possibleEffects(route.effect).some((e) => e.level !== "read")
  );
const consequentialRoutes = (tool: AnyTool) =>
  (tool.routes ?? []).filter((route) => canBeConsequential(route.effect));

Deno.test("annotations: read-only and destructive follow the kinds and the route declarations", () => {
  for (const tool of ALL_TOOLS) {
    const { annotations } = describeTool(tool);
    assert.equal(annotations?.readOnlyHint, tool.kind === "read", tool.name);
    if (tool.kind === "read") assert.deepEqual(changesState(tool), [], `${tool.name} writes`);
    // MCP gives destructiveHint and idempotentHint meaning only beside readOnlyHint: false.
    const destructive = tool.kind === "read" ? undefined : consequentialRoutes(tool).length > 0;
    assert.equal(annotations?.destructiveHint, destructive, tool.name);
    assert.equal(annotations?.openWorldHint, false, tool.name);
  }
});

Deno.test("annotations: idempotent holds, because no repeat acts twice", () => {
  for (const tool of ALL_TOOLS) {
    const idempotent = tool.kind === "read" ? undefined : true;
    assert.equal(describeTool(tool).annotations?.idempotentHint, idempotent, tool.name);
    for (const route of changesState(tool)) {
      assert.ok(route.check, `${tool.name}: ${route.route} declares the read that settles it`);
    }
    if (tool.kind === "execute") {
      const input = tool.input as z.ZodObject;
      assert.ok("receiptId" in input.shape, `${tool.name}: keyed by its receipt`);
      assert.equal(input.shape.receiptId.safeParse(undefined).success, false, tool.name);
    }
    if (tool.kind === "mutation" && changesState(tool).length > 0) {
      const text = familyText.get(tool) ?? "";
      assert.match(text, /memory\.(once|target)\(/, `${tool.name}: settled once per key`);
    }
  }
});

Deno.test("the effects map's gate column: a receipt for executes, the person asked for the rest", () => {
  const document = effectsDocument();
  for (const tool of ALL_TOOLS) {
    for (const route of consequentialRoutes(tool)) {
      const row = document.split("\n").find((line) => line.startsWith(`| \`${route.route}\``));
      assert.ok(row, `${route.route} has a row`);
      if (tool.kind === "execute") {
        assert.match(row, /\| receipt/, `${tool.name}: ${route.route}`);
        continue;
      }
      assert.notEqual(tool.kind, "preview", `${tool.name}: a preview acts`);
      assert.match(row, /\| input/, `${tool.name}: ${route.route}`);
      assert.match(
        familyText.get(tool) ?? "",
        /obtainInputApproval\(/,
        `${tool.name} reaches ${route.route} without asking the person first`,
      );
    }
  }
});
