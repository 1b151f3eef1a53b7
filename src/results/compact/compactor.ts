/**
 * The compactor: walks a tool's data along its advertised output schema and leaves out only
 * what the result itself still says, so a model needs no rule from anywhere else to read it:
 *
 * - a field whose value is empty by nature: `null` where the field may be null, else `[]` for a
 *   list and `{}` for a map (never a boolean, number or string, whose absence could read as
 *   its opposite; never `items`, `blockers` or `missingCapabilities`, which a model looks for);
 * - a nested record's `port` or `…Id` equal to the same key of the record that holds it (an
 *   inventory entry's port is its listeners' port);
 * - a process fingerprint met before: every fingerprint is stated once, in the result's
 *   `processes` table by pid, and written `{pid}` where it occurs;
 * - on a page, a field every item holds with the same value: it is stated once, in the page's
 *   `everyItem`, when that makes the page shorter (a history page's events share an origin).
 *
 * Fields the schema does not declare are written as they are.
 */
import {
  branch,
  type Defs,
  emptyValue,
  FINGERPRINT_FIELDS,
  isArray,
  isFingerprint,
  isMap,
  isRecord,
  same,
  type Schema,
} from "./schema_nodes.ts";
import { isObject, type Json } from "../../shared/json.ts";

/** The key of the result's table of process fingerprints, by pid. */
export const PROCESS_TABLE = "processes";

/** The key of a page's fields every item holds with the same value. */
export const EVERY_ITEM = "everyItem";

/** Fields written even when empty: a model looks for them. */
export const ALWAYS_WRITTEN: ReadonlySet<string> = new Set([
  "items",
  "blockers",
  "missingCapabilities",
]);

/** A field a nested record shares with the record that holds it: the parent's own id. */
export function isParentKey(key: string): boolean {
  return key === "port" || key.endsWith("Id");
}

type Table = Map<string, Json>;

/** `data` compacted along `schema` (the data node of a tool's output schema). */
export function compact(schema: Schema, defs: Defs, data: unknown): unknown {
  const table: Table = new Map();
  collect(schema, defs, data, table);
  const walked = walk(schema, defs, data, table, undefined);
  const out = isRecord(schema) && Object.hasOwn(schema.properties, EVERY_ITEM)
    ? withEveryItem(walked)
    : walked;
  if (table.size === 0 || !isObject(out)) return out;
  return { ...out, [PROCESS_TABLE]: Object.fromEntries(table) };
}

/** A page with the fields its items all hold alike stated once, if that makes it shorter. */
function withEveryItem(page: unknown): unknown {
  if (!isObject(page) || !Array.isArray(page.items) || page.items.length < 2) return page;
  const items = page.items;
  if (!items.every(isObject)) return page;
  const [first, ...rest] = items as Json[];
  const alike = Object.keys(first).filter((key) =>
    rest.every((item) => Object.hasOwn(item, key) && same(item[key], first[key]))
  );
  if (alike.length === 0) return page;
  const every = Object.fromEntries(alike.map((key) => [key, first[key]]));
  const shorter = {
    ...page,
    items: (items as Json[]).map((item) =>
      Object.fromEntries(Object.entries(item).filter(([key]) => !alike.includes(key)))
    ),
    [EVERY_ITEM]: every,
  };
  return JSON.stringify(shorter).length < JSON.stringify(page).length ? shorter : page;
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

/** The record a value sits in (directly, or as an item of one of its lists or maps). */
type Parent = Json | undefined;

function walk(node: unknown, defs: Defs, value: unknown, table: Table, parent: Parent): unknown {
  const schema = branch(node, value, defs);
  if (Array.isArray(value)) {
    return isArray(schema)
      ? value.map((item) => walk(schema.items, defs, item, table, parent))
      : value;
  }
  if (!isObject(value)) return value;
  if (isFingerprint(schema)) {
    const filed = table.get(String(value.pid));
    return filed !== undefined && same(filed, value) ? { pid: value.pid } : value;
  }
  if (isMap(schema)) {
    const values = schema.additionalProperties;
    if (!isObject(values)) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [key, walk(values, defs, child, table, parent)]),
    );
  }
  if (!isRecord(schema)) return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    const field = schema.properties[key];
    if (
      field !== undefined && !ALWAYS_WRITTEN.has(key) && leftOut(key, field, defs, child, parent)
    ) {
      continue;
    }
    out[key] = field === undefined ? child : walk(field, defs, child, table, value);
  }
  return out;
}

/** Whether the result still says what `child`, the value of field `key`, would say. */
function leftOut(key: string, field: unknown, defs: Defs, child: unknown, parent: Parent): boolean {
  const empty = emptyOf(field, defs);
  if (empty !== undefined) return same(child, empty);
  return isParentKey(key) && parent !== undefined && isScalar(child) && parent[key] === child;
}

function isScalar(value: unknown): boolean {
  return typeof value === "string" || typeof value === "number";
}

/** What a field reads as when absent, worked out once per schema node (see emptyValue). */
const emptyOfNode = new WeakMap<object, null | [] | Record<string, never> | undefined>();

function emptyOf(field: unknown, defs: Defs): null | [] | Record<string, never> | undefined {
  if (!isObject(field)) return undefined;
  if (!emptyOfNode.has(field)) emptyOfNode.set(field, emptyValue(field, defs));
  return emptyOfNode.get(field);
}

export { FINGERPRINT_FIELDS };
