/**
 * The advertised JSON Schemas: inputs say what an agent must send (real bounds, no regex a
 * format already implies); outputs declare every field that can come back, open.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { inputJsonSchema, outputJsonSchema } from "../../../src/results/json_schema.ts";

const point = z.strictObject({ x: z.int(), y: z.int() });

Deno.test("input: formats replace their regexes, safe-integer bounds go, real bounds and patterns stay", () => {
  const schema = inputJsonSchema(z.strictObject({
    id: z.uuid(),
    at: z.iso.datetime(),
    count: z.int(),
    port: z.int().min(1).max(65535),
    name: z.string().regex(/^[a-z]+$/),
  }));
  assert.equal(schema.$schema, undefined);
  assert.deepEqual(schema.properties, {
    id: { type: "string", format: "uuid" },
    at: { type: "string", format: "date-time" },
    count: { type: "integer" },
    port: { type: "integer", minimum: 1, maximum: 65535 },
    name: { type: "string", pattern: "^[a-z]+$" },
  });
  assert.deepEqual(schema.required, ["id", "at", "count", "port", "name"]);
  // Strict all the same: the instructions say so once for every tool.
  assert.equal(schema.additionalProperties, undefined);
});

Deno.test("input: a sub-schema used twice is written once under $defs", () => {
  const schema = inputJsonSchema(z.strictObject({ a: point, b: point }));
  const props = schema.properties as Record<string, { $ref?: string }>;
  assert.equal(props.a.$ref, props.b.$ref);
  const name = props.a.$ref!.replace("#/$defs/", "");
  const defs = schema.$defs as Record<string, Record<string, unknown>>;
  assert.deepEqual(defs[name].required, ["x", "y"]);
});

Deno.test("input: a definition used once, or no longer than a reference, is written in place", () => {
  const port = z.int().min(1).max(65535);
  const schema = inputJsonSchema(z.strictObject({ a: port, b: port, once: z.array(point) }));
  assert.equal(schema.$defs, undefined);
  const props = schema.properties as Record<string, unknown>;
  assert.deepEqual(props.a, { type: "integer", minimum: 1, maximum: 65535 });
  assert.deepEqual(props.b, props.a);
});

Deno.test("input: nullable folds into a type list; a record of strings keeps its value type only", () => {
  const schema = inputJsonSchema(z.strictObject({
    maybe: z.string().nullable(),
    tags: z.record(z.string(), z.string()),
  }));
  assert.deepEqual(schema.properties, {
    maybe: { type: ["string", "null"] },
    tags: { type: "object", additionalProperties: { type: "string" } },
  });
});

Deno.test("output: open, with no required list, formats, bounds or patterns", () => {
  const schema = outputJsonSchema(z.object({
    id: z.uuid(),
    count: z.int().min(0),
    code: z.string().regex(/^[a-z]+$/),
    maybe: z.string().nullable(),
    strict: z.strictObject({ k: z.string() }),
  }));
  assert.deepEqual(schema, {
    type: "object",
    properties: {
      id: { type: "string" },
      count: { type: "integer" },
      code: { type: "string" },
      maybe: { type: ["string", "null"] },
      strict: { type: "object", properties: { k: { type: "string" } } },
    },
  });
});

Deno.test("output: every record is declared to its last field, where it occurs", () => {
  const inner = z.object({ x: z.string() });
  const schema = outputJsonSchema(z.object({
    deep: z.object({ one: z.object({ two: z.object({ three: z.string() }) }) }),
    list: z.array(inner),
    again: inner.nullable(),
  }));
  const properties = schema.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(properties.deep, {
    type: "object",
    properties: {
      one: {
        type: "object",
        properties: { two: { type: "object", properties: { three: { type: "string" } } } },
      },
    },
  });
  // Which records move under $defs is ./output_defs.ts's to decide.
  assert.equal(schema.$defs, undefined);
  assert.deepEqual(properties.list.items, {
    type: "object",
    properties: { x: { type: "string" } },
  });
  assert.deepEqual(properties.again, {
    type: ["object", "null"],
    properties: { x: { type: "string" } },
  });
});

Deno.test("output: fields named like keywords (required, minimum, format) stay declared", () => {
  const schema = outputJsonSchema(z.object({
    required: z.boolean(),
    range: z.object({ minimum: z.int(), maximum: z.int() }),
    format: z.string(),
  }));
  const properties = schema.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(Object.keys(properties), ["required", "range", "format"]);
  assert.deepEqual(Object.keys(properties.range.properties as object), ["minimum", "maximum"]);
});

Deno.test("input: a sub-schema used once is written in place, one used twice once under $defs", () => {
  // A refinement clones its object, and zod then extracts the children it met twice.
  const refined = inputJsonSchema(
    z.strictObject({ id: z.uuid(), port: z.int().optional() }).refine(() => true),
  );
  assert.equal(refined.$defs, undefined);
  assert.deepEqual(refined.properties, {
    id: { type: "string", format: "uuid" },
    port: { type: "integer" },
  });
  const twice = inputJsonSchema(z.strictObject({ a: point, b: point }));
  assert.deepEqual(Object.keys(twice.$defs as object).length, 1);
  assert.deepEqual((twice.properties as Record<string, unknown>).a, { $ref: "#/$defs/__schema0" });
});

Deno.test("input: a bounded map says its entry count and key length, not that keys are strings", () => {
  const map = z.record(z.string().max(8), z.boolean()).meta({ maxProperties: 4 });
  const schema = inputJsonSchema(z.strictObject({ m: map }));
  assert.deepEqual((schema.properties as Record<string, unknown>).m, {
    type: "object",
    propertyNames: { maxLength: 8 },
    additionalProperties: { type: "boolean" },
    maxProperties: 4,
  });
});
