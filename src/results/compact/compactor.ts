/**
 * The compactor: walks a tool's data along its advertised output schema and leaves a field out
 * only where the rule for that field (./rules.ts) gives back exactly the value it held, so a
 * reader who knows the rules loses nothing. Process fingerprints go once into the result's
 * process table and are written `{pid}` elsewhere. Fields the schema does not declare, and
 * values no rule gives back, are written as they are.
 */
import {
  ALWAYS_WRITTEN,
  eventEntity,
  isFieldRef,
  isLatestRef,
  latestOf,
  PROCESS_TABLE,
  ruleFor,
  shiftedTime,
  type Template,
} from "./rules.ts";
import {
  branch,
  type Defs,
  emptyValue,
  isArray,
  isFingerprint,
  isMap,
  isRecord,
  same,
  type Schema,
} from "./schema_nodes.ts";
import { isObject, type Json, type JsonValue } from "../../shared/json.ts";

export interface CompactContext {
  /** This bridge's origin: an event that came from it is written without `origin`. */
  origin: JsonValue;
}

/** Values the rules cannot give back; such a field is always written. */
const KEEP = Symbol("keep");

type Table = Map<string, Json>;

/** `data` compacted along `schema` (the data node of a tool's output schema). */
export function compact(
  schema: Schema,
  defs: Defs,
  data: unknown,
  context: CompactContext,
): unknown {
  const table: Table = new Map();
  collect(schema, defs, data, table);
  const out = walk(schema, defs, data, table, context, undefined);
  if (table.size === 0 || !isObject(out)) return out;
  return { ...out, [PROCESS_TABLE.key]: Object.fromEntries(table) };
}

/** First pass: every fingerprint by pid (the first seen; a different one stays inline). */
function collect(node: unknown, defs: Defs, value: unknown, table: Table): void {
  const schema = branch(node, value, defs);
  if (Array.isArray(value)) {
    if (isArray(schema)) { for (const item of value) collect(schema.items, defs, item, table); }
    return;
  }
  if (!isObject(value)) return;
  if (isFingerprint(schema) && typeof value.pid === "number") {
    const key = String(value.pid);
    if (!table.has(key)) table.set(key, value);
    return;
  }
  if (isRecord(schema)) {
    for (const [key, child] of Object.entries(value)) {
      if (Object.hasOwn(schema.properties, key)) {
        collect(schema.properties[key], defs, child, table);
      }
    }
  } else if (isMap(schema) && isObject(schema.additionalProperties)) {
    for (const child of Object.values(value)) {
      collect(schema.additionalProperties, defs, child, table);
    }
  }
}

/** The record a value sits in (directly, or as an item of one of its lists). */
type Parent = Json | undefined;

function walk(
  node: unknown,
  defs: Defs,
  value: unknown,
  table: Table,
  context: CompactContext,
  parent: Parent,
): unknown {
  const schema = branch(node, value, defs);
  if (Array.isArray(value)) {
    return isArray(schema)
      ? value.map((item) => walk(schema.items, defs, item, table, context, parent))
      : value;
  }
  if (!isObject(value)) return value;
  if (isFingerprint(schema)) {
    const filed = table.get(String(value.pid));
    return filed !== undefined && same(filed, value) ? { pid: value.pid } : value;
  }
  if (isMap(schema)) {
    // walk() resolves the values' node itself (through branch), as collect() relies on.
    const values = schema.additionalProperties;
    if (!isObject(values)) return value;
    return Object.fromEntries(
      Object.entries(value).map((
        [key, child],
      ) => [key, walk(values, defs, child, table, context, parent)]),
    );
  }
  if (!isRecord(schema)) return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    const field = schema.properties[key];
    if (field === undefined) {
      out[key] = child;
      continue;
    }
    if (!ALWAYS_WRITTEN.has(key)) {
      const absent = absence(key, field, defs, value, parent, table, context);
      if (absent !== KEEP && same(child, absent)) continue;
    }
    out[key] = walk(field, defs, child, table, context, value);
  }
  return out;
}

/** What a rule-less field reads as when absent, worked out once per schema node. */
const emptyOf = new WeakMap<object, unknown>();

function emptyFor(field: unknown, defs: Defs): unknown {
  if (!isObject(field)) return KEEP;
  if (!emptyOf.has(field)) {
    const empty = emptyValue(field, defs);
    emptyOf.set(field, empty === undefined ? KEEP : empty);
  }
  return emptyOf.get(field);
}

/** What the field `key` of `record` would read as if left out (KEEP: no rule gives it). */
function absence(
  key: string,
  field: unknown,
  defs: Defs,
  record: Json,
  parent: Parent,
  table: Table,
  context: CompactContext,
): unknown {
  const rule = ruleFor(key);
  if (rule === undefined) return emptyFor(field, defs);
  switch (rule.kind) {
    case "fixed":
      return rule.value;
    case "same":
      return fill(rule.as, record);
    case "eventEntity":
      return eventEntity(record[rule.from]) ?? KEEP;
    case "process": {
      const by = record[rule.by];
      return typeof by === "number" ? table.get(String(by)) ?? null : null;
    }
    case "ownOrigin":
      return context.origin;
    case "parent":
      return parent !== undefined && Object.hasOwn(parent, key) ? parent[key] : KEEP;
  }
}

/** A template filled from the record; KEEP when a field it names is not there. */
function fill(template: Template, record: Json): unknown {
  if (Array.isArray(template)) {
    const items = template.map((item) => fill(item, record));
    return items.includes(KEEP) ? KEEP : items;
  }
  if (isLatestRef(template)) return latestOf(template.$latest, record) ?? KEEP;
  if (isFieldRef(template)) {
    if (!Object.hasOwn(record, template.$)) return KEEP;
    const value = record[template.$];
    if (template.plusMs !== undefined) return shiftedTime(value, template.plusMs) ?? KEEP;
    return template.prefix === undefined ? value : `${template.prefix}${value}`;
  }
  if (isObject(template)) {
    const entries = Object.entries(template).map((
      [key, value],
    ) => [key, fill(value as Template, record)]);
    return entries.some(([, value]) => value === KEEP) ? KEEP : Object.fromEntries(entries);
  }
  return template;
}
