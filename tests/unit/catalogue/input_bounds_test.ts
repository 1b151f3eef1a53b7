/**
 * Every input bounded, by construction. One walk over every tool's advertised input schema
 * fails on a string without a bound (maxLength, or a format or anchored pattern that fixes
 * its length), a list without maxItems, a map without maxProperties and a bounded key, and any
 * value left untyped. Then, through the real catalogue over a daemon that must not be reached,
 * every string input of every tool (list items, map keys and values included), one character
 * over its bound and far over it, is `portreeve_invalid_input` naming that field.
 */
import assert from "node:assert/strict";
import listing from "../../../src/catalogue/tools_list.json" with { type: "json" };
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { INPUT_BOUNDS } from "../../../src/catalogue/shapes.ts";
import { resolve, stringBound, stringInputs } from "../../support/input_walk.ts";
import { toolRig } from "../../support/scripted_daemon.ts";

type Schema = Record<string, unknown>;
const tools = listing.tools.map((entry) => entry.tool) as unknown as {
  name: string;
  inputSchema: Schema;
}[];

/**
 * Inputs that take any JSON value, which JSON Schema cannot bound in size: each is refused
 * over its stated size by the tool's own check (tested below).
 */
const ANY_JSON: Record<string, string> = {
  "portreeve_stack_definition_validate.definition": "INPUT_BOUNDS.definition",
};

/** Every node of `schema` that is not bounded, as `path: why`. */
function unbounded(raw: Schema, root: Schema, path: string, out: string[]): void {
  const s = resolve(raw, root);
  if (Array.isArray(s.anyOf)) {
    (s.anyOf as Schema[]).forEach((o, i) => unbounded(o, root, `${path}|${i}`, out));
    return;
  }
  if ("const" in s || Array.isArray(s.enum)) return;
  const types = [s.type].flat().filter((t) => t !== undefined);
  if (types.length === 0 && !(path in ANY_JSON)) out.push(`${path}: untyped`);
  if (types.includes("string") && stringBound(s) === Infinity) out.push(`${path}: string`);
  if (types.includes("array")) {
    if (typeof s.maxItems !== "number") out.push(`${path}: list without maxItems`);
    if (typeof s.items === "object") unbounded(s.items as Schema, root, `${path}[]`, out);
  }
  if (types.includes("object")) {
    for (const [key, child] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
      unbounded(child, root, `${path}.${key}`, out);
    }
    const values = s.additionalProperties;
    if (values !== false) {
      if (typeof s.maxProperties !== "number") out.push(`${path}: map without maxProperties`);
      const names = (s.propertyNames ?? {}) as Schema;
      if (typeof names.maxLength !== "number") out.push(`${path}: map keys without maxLength`);
      if (typeof values === "object") unbounded(values as Schema, root, `${path}{}`, out);
    }
  }
}

Deno.test("every string, list and map input of every tool is bounded in its advertised schema", () => {
  assert.equal(tools.length, ALL_TOOLS.length);
  const found: string[] = [];
  for (const tool of tools) unbounded(tool.inputSchema, tool.inputSchema, tool.name, found);
  assert.deepEqual(found, [], `unbounded inputs:\n${found.join("\n")}`);
  for (const path of Object.keys(ANY_JSON)) {
    const [name, field] = path.split(".");
    const schema = tools.find((t) => t.name === name)?.inputSchema.properties as Schema;
    assert.deepEqual(schema?.[field], {}, `${path} is still an any-JSON input`);
  }
});

Deno.test("the walk notices what it must: an unbounded string, list, map or key", () => {
  const probe = (schema: Schema) => {
    const out: string[] = [];
    unbounded(schema, schema, "t", out);
    return out;
  };
  const closed = { type: "object", additionalProperties: false };
  assert.deepEqual(probe({ ...closed, properties: { a: { type: "string" } } }), ["t.a: string"]);
  assert.deepEqual(probe({ ...closed, properties: { a: { type: "string", pattern: "^a+$" } } }), [
    "t.a: string",
  ]);
  assert.deepEqual(probe({ ...closed, properties: { a: { type: "array", items: {} } } }), [
    "t.a: list without maxItems",
    "t.a[]: untyped",
  ]);
  assert.deepEqual(
    probe({ type: "object", additionalProperties: { type: "string", maxLength: 1 } }),
    ["t: map without maxProperties", "t: map keys without maxLength"],
  );
  assert.deepEqual(probe({ ...closed, properties: { a: { type: "string", format: "uuid" } } }), []);
  assert.deepEqual(
    probe({ ...closed, properties: { a: { type: "string", pattern: "^[a-f0-9]{12,64}$" } } }),
    [],
  );
});

Deno.test("an any-JSON input is refused over its stated size, before the daemon", async () => {
  await using rig = toolRig(() => {
    throw new Error("no request may reach the daemon");
  });
  const big = { project: "x".repeat(INPUT_BOUNDS.definition.max) };
  const result = await rig.call("portreeve_stack_definition_validate", { definition: big });
  assert.equal(result.error?.code, "portreeve_invalid_input");
  assert.deepEqual((result.error?.details.issues as { path: string }[]).map((i) => i.path), [
    "definition",
  ]);
  assert.equal(rig.daemon.sent.length, 0);
});

for (const tool of tools) {
  const inputs = stringInputs(tool.inputSchema);
  if (inputs.length === 0) continue;
  Deno.test(`${tool.name}: every over-long string input is invalid_input naming it, unsent`, async () => {
    await using rig = toolRig(() => {
      throw new Error("no request may reach the daemon");
    });
    for (const input of inputs) {
      assert.ok(input.max < Infinity, `${tool.name} ${input.path} has a bound`);
      for (const extra of [1, 100_000]) {
        const label = `${tool.name} ${input.path}${input.key ? " (a key)" : ""} +${extra}`;
        const result = await rig.call(tool.name, input.argsWith(extra));
        assert.equal(result.error?.code, "portreeve_invalid_input", label);
        const paths = (result.error?.details.issues as { path: string }[]).map((i) => i.path);
        const named = input.key
          ? paths.some((p) => p.startsWith(input.path ? `${input.path}.` : ""))
          : paths.includes(input.path);
        assert.ok(named, `${label}: issues name ${paths.join(", ")}`);
        // The refusal names the field; it does not echo the value back.
        assert.ok(JSON.stringify(result).length < 4_000, `${label}: a short answer`);
      }
    }
    assert.equal(rig.daemon.sent.length, 0, `${tool.name}: nothing reached the daemon`);
  });
}
