/**
 * The advertised JSON Schemas: inputs say what an agent must send (strict objects, real bounds,
 * no regex a format already implies); outputs say what comes back, open and shallow.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { inputJsonSchema, outputJsonSchema } from "../../../src/catalogue/json_schema.ts";

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
  assert.equal(schema.additionalProperties, false, "a strict input says it is closed");
});

Deno.test("input: a sub-schema used twice is written once under $defs", () => {
  const schema = inputJsonSchema(z.strictObject({ a: point, b: point }));
  const props = schema.properties as Record<string, { $ref?: string }>;
  assert.equal(props.a.$ref, props.b.$ref);
  const name = props.a.$ref!.replace("#/$defs/", "");
  const defs = schema.$defs as Record<string, Record<string, unknown>>;
  assert.deepEqual(defs[name].required, ["x", "y"]);
  assert.equal(defs[name].additionalProperties, false);
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

Deno.test("output: open, with no required list, bounds or patterns", () => {
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
      id: { type: "string", format: "uuid" },
      count: { type: "integer" },
      code: { type: "string" },
      maybe: { type: ["string", "null"] },
      strict: { type: "object", properties: { k: { type: "string" } } },
    },
  });
});

Deno.test("output: objects and arrays deeper than two levels are advertised by type only", () => {
  const schema = outputJsonSchema(z.object({
    deep: z.object({ one: z.object({ two: z.object({ three: z.string() }) }) }),
    list: z.array(z.object({ inner: z.object({ x: z.string() }) })),
  }));
  assert.deepEqual(schema.properties, {
    deep: {
      type: "object",
      properties: { one: { type: "object", properties: { two: { type: "object" } } } },
    },
    list: { type: "array", items: { type: "object", properties: { inner: { type: "object" } } } },
  });
});

Deno.test("output: a nullable deep object is cut to its type list", () => {
  const schema = outputJsonSchema(z.object({
    a: z.object({ b: z.object({ c: z.object({ d: z.string() }).nullable() }) }),
  }));
  const a = (schema.properties as Record<string, Record<string, Record<string, unknown>>>).a;
  const b = a.properties.b as { properties: Record<string, unknown> };
  assert.deepEqual(b.properties.c, { type: ["object", "null"] });
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
