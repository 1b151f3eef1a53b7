/**
 * How output schemas are laid out: a record in place wherever it occurs once, however deep, a
 * repeated one once under `$defs` by the name of its field, nullable ones named as such,
 * value lists kept only where they tell a union's branches apart, a
 * record that is never null declared by its properties alone —
 * and every served output schema declares every key (fingerprints included), with each `$ref`
 * pointing at a definition it carries.
 */
import assert from "node:assert/strict";
import { FINGERPRINT_DEF, hoistRecords } from "../../../src/results/output_defs.ts";
import listing from "../../../src/catalogue/tools_list.json" with { type: "json" };
import { isObject, type Json } from "../../../src/shared/json.ts";

const never = () => false;
const str = { type: "string" };
const record = (properties: Json, nullable = false): Json => ({
  type: nullable ? ["object", "null"] : "object",
  properties,
});
/** A record as served: its properties say it is an object; one that may be null says so. */
const served = (properties: Json, nullable = false): Json =>
  nullable ? { type: ["object", "null"], properties } : { properties };

Deno.test("a record that occurs twice moves under $defs, named after its field", () => {
  const long = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`field${i}`, str]));
  const { data, defs } = hoistRecords(
    record({
      top: record({ middle: record(long), other: record(long) }),
      items: {
        type: "array",
        items: record({ listeners: { type: "array", items: record(long) } }),
      },
    }),
    never,
  );
  const top = (data.properties as Json).top as Json;
  // The same record twice is one definition; a list's field names it in the singular.
  assert.deepEqual((top.properties as Json).middle, { $ref: "#/$defs/middle" });
  assert.deepEqual((top.properties as Json).other, { $ref: "#/$defs/middle" });
  const item = ((data.properties as Json).items as Json).items as Json;
  assert.deepEqual(((item.properties as Json).listeners as Json).items, { $ref: "#/$defs/middle" });
  assert.deepEqual(Object.keys(defs), ["middle"]);
  assert.deepEqual(defs.middle, served(long));
});

Deno.test("a record only ever nullable is its own nullable definition; one also not keeps anyOf", () => {
  const long = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}`, str]));
  const only = hoistRecords(
    record({ a: record({ claim: record(long, true), before: record(long, true) }) }),
    never,
  );
  assert.deepEqual(((only.data.properties as Json).a as Json).properties, {
    claim: { $ref: "#/$defs/claimOrNull" },
    before: { $ref: "#/$defs/claimOrNull" },
  });
  assert.deepEqual(only.defs.claimOrNull, served(long, true));
  const both = hoistRecords(
    record({ a: record({ claim: record(long, true), again: record(long) }) }),
    never,
  );
  assert.deepEqual(((both.data.properties as Json).a as Json).properties, {
    claim: { anyOf: [{ $ref: "#/$defs/claim" }, { type: "null" }] },
    again: { $ref: "#/$defs/claim" },
  });
});

Deno.test("a record used once stays in place, however deep; a string's values only in union branches", () => {
  const state = { type: "string", enum: ["on", "off"] };
  const long = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}`, str]));
  const { data, defs } = hoistRecords(
    record({
      a: record({ small: record({ x: str }), state }),
      deep: record({ deeper: record({ deepest: record(long) }) }),
      events: {
        type: "array",
        items: {
          anyOf: [record({ kind: { type: "string", const: "x" } }), record({ kind: state })],
        },
      },
    }),
    never,
  );
  assert.deepEqual(defs, {});
  assert.deepEqual(((data.properties as Json).a as Json).properties, {
    small: served({ x: str }),
    state: str,
  });
  assert.deepEqual(
    (data.properties as Json).deep,
    served({ deeper: served({ deepest: served(long) }) }),
  );
  const branches = (((data.properties as Json).events as Json).items as Json).anyOf as Json[];
  assert.deepEqual(branches[1], served({ kind: state }), "a branch keeps what tells it apart");
});

Deno.test("a fingerprint is always its definition, and the data declares the process table", () => {
  const fingerprint = record({ pid: { type: "integer" }, command: str });
  const isFingerprint = (node: Json) => isObject(node.properties) && "pid" in node.properties;
  const { data, defs } = hoistRecords(record({ process: fingerprint }), isFingerprint);
  assert.deepEqual((data.properties as Json).process, { $ref: `#/$defs/${FINGERPRINT_DEF}` });
  assert.deepEqual((data.properties as Json).processes, {
    type: "object",
    additionalProperties: { $ref: `#/$defs/${FINGERPRINT_DEF}` },
  });
  assert.deepEqual(defs[FINGERPRINT_DEF], served(fingerprint.properties as Json));
});

/** Every `$ref` in `node`. */
function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((item) => refs(item, out));
  else if (isObject(node)) {
    if (typeof node.$ref === "string") out.push(node.$ref);
    Object.values(node).forEach((value) => refs(value, out));
  }
  return out;
}

/** What a local `$ref` (a JSON pointer into the schema) points at; undefined when nothing. */
function pointed(schema: Json, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  return ref.slice(2).split("/").reduce<unknown>(
    (node, part) => isObject(node) && Object.hasOwn(node, part) ? node[part] : undefined,
    schema,
  );
}

/** Every object node of `node` that could hold data but declares no keys. */
function undeclared(node: unknown, path: string, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((item, i) => undeclared(item, `${path}[${i}]`, out));
  else if (isObject(node)) {
    const types = ([] as unknown[]).concat(node.type ?? []);
    const loose = types.includes("object") && !isObject(node.properties) &&
      !isObject(node.additionalProperties) && !isObject(node.propertyNames);
    if (loose) out.push(path);
    for (const [key, value] of Object.entries(node)) undeclared(value, `${path}.${key}`, out);
  }
  return out;
}

/**
 * Output parts whose keys no one fixes: an error's details (diagnostics reports one as data),
 * a run's provider evidence (the daemon's, per provider) and the payload of a history event of a
 * type the schema does not know.
 */
const OPEN_MAPS = /\.(providerEvidence|payload|details)$/;

Deno.test("every served output schema declares its keys and resolves every reference", () => {
  for (const { tool } of listing.tools) {
    const schema = tool.outputSchema as Json;
    const defs = (schema.$defs ?? {}) as Json;
    for (const ref of refs(schema)) {
      assert.ok(pointed(schema, ref) !== undefined, `${tool.name}: ${ref}`);
    }
    const fingerprint = defs[FINGERPRINT_DEF] as Json | undefined;
    if (fingerprint !== undefined) {
      assert.deepEqual(
        Object.keys(fingerprint.properties as Json).sort(),
        ["command", "executable", "parentPid", "pid", "startTime", "uid", "workingDirectory"],
        tool.name,
      );
      const data = (schema.properties as Json).data as Json;
      assert.ok(isObject((data.properties as Json).processes), `${tool.name}: the process table`);
    }
    const loose = undeclared(schema, tool.name).filter((path) => !OPEN_MAPS.test(path));
    assert.deepEqual(loose, [], `${tool.name}: objects that declare no key`);
  }
});
