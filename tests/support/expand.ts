/**
 * The inverse of the compact result form, from what a reader is told and nothing else: the
 * rules as declared in src/results/compact/rules.ts (which the server instructions state
 * word for word), the output schema tools/list serves for the tool (which fields a record has
 * and whether each may be null, a list or a map), and this bridge's origin (stated in the
 * instructions). It never calls the compactor. Tests expand a compact result and compare it
 * with the records the tool got from the daemon.
 */
import listing from "../../src/catalogue/tools_list.json" with { type: "json" };
import { type DataSchema, dataSchemaOf } from "../../src/results/compact/mod.ts";
import { isObject, type Json, type JsonValue } from "../../src/shared/json.ts";
import {
  eventEntity,
  isFieldRef,
  isLatestRef,
  latestOf,
  PROCESS_TABLE,
  type Rule,
  RULES,
  type Template,
} from "../../src/results/compact/rules.ts";
// The expander reads schema nodes as the compactor does (the same record boundaries), no more.
import * as nodes from "../../src/results/compact/schema_nodes.ts";

type Table = Record<string, Json>;

interface Reader {
  defs: nodes.Defs;
  table: Table;
  origin: JsonValue;
}

/** This bridge's origin, as its instructions state it (`origin = {…}, this bridge`). */
export function statedOrigin(instructions: string): JsonValue {
  const stated = instructions.match(/origin = (\{[^}]*\}), this bridge/);
  if (stated === null) throw new Error("the instructions state no origin");
  return JSON.parse(stated[1]);
}

/** The data schema tools/list serves for `tool`. */
export function servedDataSchema(tool: string): DataSchema {
  const listed = listing.tools.find((entry) => entry.tool.name === tool)?.tool;
  const served = dataSchemaOf(listed?.outputSchema);
  if (served === undefined) throw new Error(`${tool} advertises no data schema`);
  return served;
}

/** Expands one tool's compact data back to the daemon's records. */
export function expandResult(tool: string, data: Json, origin: JsonValue): Json {
  const served = servedDataSchema(tool);
  const { [PROCESS_TABLE.key]: table, ...rest } = data;
  const reader: Reader = {
    defs: served.defs,
    table: (isObject(table) ? table : {}) as Table,
    origin,
  };
  const schema = { ...served.data };
  // The table is the reader's, not a field of the data: nothing to restore there.
  if (isObject(schema.properties)) {
    const { [PROCESS_TABLE.key]: _table, ...fields } = schema.properties;
    schema.properties = fields;
  }
  return expand(schema, rest, reader, undefined) as Json;
}

/** `parent`: the record (as expanded) a value sits in, directly or in one of its lists. */
function expand(node: unknown, value: unknown, reader: Reader, parent: Json | undefined): unknown {
  const schema = nodes.branch(node, value, reader.defs);
  if (Array.isArray(value)) {
    return nodes.isArray(schema)
      ? value.map((item) => expand(schema.items, item, reader, parent))
      : value;
  }
  if (!isObject(value)) return value;
  if (nodes.isFingerprint(schema)) {
    // `{pid}` alone stands for the table's fingerprint of that pid.
    const keys = Object.keys(value);
    return keys.length === 1 && keys[0] === PROCESS_TABLE.by
      ? reader.table[String(value[PROCESS_TABLE.by])]
      : value;
  }
  if (nodes.isMap(schema)) {
    if (!isObject(schema.additionalProperties)) return value;
    const values = nodes.resolve(schema.additionalProperties, reader.defs);
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [key, expand(values, child, reader, parent)]),
    );
  }
  if (!nodes.isRecord(schema)) return value;
  const out: Json = { ...value };
  const declared = Object.keys(schema.properties);
  const missing = (field: string) => declared.includes(field) && !Object.hasOwn(out, field);
  // Fields no rule names first: a rule may read them (e.g. confirmedAt).
  for (const field of declared.filter(missing)) {
    if (RULES.some((rule) => rule.field === field)) continue;
    const empty = nodes.emptyValue(schema.properties[field], reader.defs);
    if (empty !== undefined) out[field] = empty;
  }
  for (const rule of RULES) {
    if (!missing(rule.field)) continue;
    const restored = byRule(rule, out, reader, parent);
    if (restored !== undefined) out[rule.field] = restored;
  }
  // Then the fields inside, which may read this record's restored fields.
  for (const [key, child] of Object.entries(out)) {
    const field = schema.properties[key];
    if (field !== undefined) out[key] = expand(field, child, reader, out);
  }
  return out;
}

/** What the rule says an absent field is, read from the (partly restored) record. */
function byRule(rule: Rule, record: Json, reader: Reader, parent: Json | undefined): unknown {
  switch (rule.kind) {
    case "fixed":
      return structuredClone(rule.value);
    case "same":
      return fill(rule.as, record);
    case "eventEntity":
      return eventEntity(record[rule.from]);
    case "process": {
      const key = record[rule.by];
      return (typeof key === "number" ? reader.table[String(key)] : undefined) ?? null;
    }
    case "ownOrigin":
      return structuredClone(reader.origin);
    case "parent":
      return parent?.[rule.field];
  }
}

function fill(template: Template, record: Json): unknown {
  if (Array.isArray(template)) return template.map((item) => fill(item, record));
  if (isLatestRef(template)) return latestOf(template.$latest, record);
  if (isFieldRef(template)) {
    const value = record[template.$];
    if (template.plusMs !== undefined) {
      // Written out here, not borrowed from the compactor: the expander checks it.
      return typeof value === "string"
        ? new Date(Date.parse(value) + template.plusMs).toISOString()
        : undefined;
    }
    return template.prefix === undefined ? structuredClone(value) : `${template.prefix}${value}`;
  }
  if (isObject(template)) {
    return Object.fromEntries(
      Object.entries(template).map(([key, value]) => [key, fill(value as Template, record)]),
    );
  }
  return template;
}
