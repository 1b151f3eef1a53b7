/**
 * The catalogue keeps every tool of the reference bridge (the recorded `portreeve mcp serve`
 * catalogue in tests/fixtures) with its input fields (names, types, enums, limits, defaults,
 * required), so an agent can switch bridges without relearning; ours add length and size
 * bounds where the anchor has none. Tools of our own may follow.
 * Deliberate departures are listed in DEPARTURES with the reason.
 */
import assert from "node:assert/strict";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { describeTool } from "../../../src/results/describe.ts";
import type { Json } from "../../../src/shared/json.ts";

/** The reference bridge's tool names and input schemas (prose removed), recorded once. */
const anchor = JSON.parse(
  await Deno.readTextFile(new URL("../../fixtures/reference-catalogue.json", import.meta.url)),
) as { tools: { name: string; inputSchema: Json }[] };
const anchorTools = new Map(anchor.tools.map((t) => [t.name, t]));

/** Paths (tool:path) where we differ on purpose. */
const DEPARTURES: Record<string, string> = {
  // Typed definition instead of `any`, so agents see the shape from the schema (the tool
  // that writes; validate takes any JSON value, as the anchor does).
  "portreeve_stack_apply_preview:definition": "typed",
  // Object root instead of a top-level anyOf, which some hosts reject.
  "portreeve_activation_confirm_endpoint:": "object root",
};

/** Bounds ours adds where the anchor has none (see INPUT_BOUNDS in src/shared/input_bounds.ts). */
const ADDED_BOUNDS = ["#maxLength", "#maxItems"];

const FACTS = [
  "type",
  "enum",
  "const",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "minLength",
  "maxLength",
  "maxItems",
  "default",
  "format",
];

/**
 * Puts both sides in one form before comparing: `$ref`s resolved, and a nullable written as
 * `anyOf: [X, {type: "null"}]` (the anchor) folded into `type: [T, "null"]` (ours).
 */
function normalise(schema: Json, root: Json): Json {
  let node = schema;
  if (typeof node.$ref === "string") {
    const name = node.$ref.replace("#/$defs/", "");
    const { $ref: _ref, ...rest } = node;
    node = { ...((root.$defs as Record<string, Json>)[name]), ...rest };
  }
  const options = node.anyOf as Json[] | undefined;
  if (Array.isArray(options) && options.length === 2) {
    const value = options.find((o) => o.type !== "null");
    const nul = options.find((o) => o.type === "null");
    if (value && nul) {
      const { anyOf: _anyOf, ...rest } = node;
      const resolved = normalise(value, root);
      node = { ...rest, ...resolved, type: [resolved.type, "null"].flat() };
    }
  }
  return node;
}

function facts(raw: Json, path: string, out: Map<string, unknown>, tool: string, root = raw): void {
  if (DEPARTURES[`${tool}:${path}`]) return;
  const schema = normalise(raw, root);
  for (const fact of FACTS) {
    // zod's ±2^53-1 bounds on plain integers say nothing; our compact schemas drop them.
    if (Math.abs(schema[fact] as number) === Number.MAX_SAFE_INTEGER) continue;
    if (fact in schema) out.set(`${path}#${fact}`, JSON.stringify(schema[fact]));
  }
  if (Array.isArray(schema.required)) {
    out.set(`${path}#required`, JSON.stringify([...schema.required].sort()));
  }
  const props = schema.properties as Record<string, Json> | undefined;
  if (props) {
    out.set(`${path}#keys`, JSON.stringify(Object.keys(props).sort()));
    for (const [key, child] of Object.entries(props)) {
      facts(child, path ? `${path}.${key}` : key, out, tool, root);
    }
  }
  if (schema.items && typeof schema.items === "object") {
    facts(schema.items as Json, `${path}[]`, out, tool, root);
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
    facts(schema.additionalProperties as Json, `${path}{}`, out, tool, root);
  }
}

Deno.test("every reference tool is in the catalogue", () => {
  const ours = new Set(ALL_TOOLS.map((t) => t.name));
  const absent = [...anchorTools.keys()].filter((name) => !ours.has(name));
  assert.deepEqual(absent, [], `reference tools missing: ${absent.join(", ")}`);
});

for (const tool of ALL_TOOLS.filter((t) => anchorTools.has(t.name))) {
  Deno.test(`${tool.name}: input fields, enums, limits and defaults match the anchor`, () => {
    const ours = new Map<string, unknown>();
    const theirs = new Map<string, unknown>();
    // The one field allowed beyond the anchor's: optional `detail: "full"` (records whole).
    const { detail, ...inputs } = (describeTool(tool).inputSchema as Json).properties as Json;
    if (detail !== undefined) assert.deepEqual(detail, { type: "string", enum: ["full"] });
    const input = { ...describeTool(tool).inputSchema as Json, properties: inputs };
    facts(input, "", ours, tool.name);
    facts(anchorTools.get(tool.name)!.inputSchema, "", theirs, tool.name);
    for (const [key, value] of theirs) assert.equal(ours.get(key), value, `${tool.name} ${key}`);
    for (const [key, value] of ours) {
      // Every input is bounded (INPUT_BOUNDS): a bound the anchor lacks may be added, never
      // changed where the anchor has one.
      if (ADDED_BOUNDS.some((fact) => key.endsWith(fact)) && !theirs.has(key)) continue;
      assert.equal(theirs.get(key), value, `${tool.name} ${key} (extra)`);
    }
  });
}

Deno.test("input schemas are host-safe: object root, no top-level combinators, explicit properties", () => {
  for (const tool of ALL_TOOLS) {
    const schema = describeTool(tool).inputSchema as Json;
    assert.equal(schema.type, "object", tool.name);
    assert.ok(schema.properties, `${tool.name} has explicit properties`);
    for (const key of ["anyOf", "oneOf", "allOf", "not", "enum"]) {
      assert.ok(!(key in schema), `${tool.name} ${key}`);
    }
    assert.ok(!("required" in schema) || Array.isArray(schema.required), tool.name);
    const output = describeTool(tool).outputSchema as Json;
    assert.equal(output.type, "object", `${tool.name} output root`);
    assert.ok(
      !JSON.stringify(output).includes('"pattern":"^([0-9a-fA-F]{8}'),
      `${tool.name} no UUID regex`,
    );
  }
});
