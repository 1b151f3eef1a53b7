/**
 * The compactor: walks a tool's data along its advertised output schema and leaves out only
 * what the result itself still says, so a model needs no rule from anywhere else to read it:
 *
 * - a field whose value is empty by nature: `null` where the field may be null, else `[]` for a
 *   list and `{}` for a map (never a boolean, number or string, whose absence could read as
 *   its opposite; never a page's `items` or `missingCapabilities`, which a model looks for);
 * - an id the record holding a nested record states: the nested record's `port` or `…Id` equal
 *   to the same key of the record holding it (an inventory entry's port is its listeners'
 *   port); its `id` equal to the holder's `<field>Id` (an operation beside `operationId`); its
 *   `<name>Id` equal to the `id` of the record the holder states as `<name>` (a stack status's
 *   generation belongs to its `stack`);
 * - a record met before: a process fingerprint is stated once, in the result's `processes`
 *   table by pid, and written `{pid}` where it occurs; any other record with an `id` that the
 *   result already states whole is written `{id}` after its first occurrence;
 * - in a list of records whose schema declares `every<Record>` beside it (a page's `items`, a
 *   stack's `endpoints`), a field every record holds with the same value: it is stated once, in
 *   `every<Record>`, when that makes the result shorter.
 *
 * Fields the schema does not declare are written as they are.
 */
import {
  branch,
  type Defs,
  emptyValue,
  everyKeyOf,
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

/** Fields written even when empty: a model looks for them. */
export const ALWAYS_WRITTEN: ReadonlySet<string> = new Set(["items", "missingCapabilities"]);

/** A field a nested record shares with the record that holds it: the parent's own id. */
export function isParentKey(key: string): boolean {
  return key === "port" || key.endsWith("Id");
}

/**
 * Whether the record holding a nested record states the value of its field `key`: `holder` is
 * the record it sits in (directly or in a list), `field` the holder's field it sits in.
 */
export function statedByHolder(
  key: string,
  child: unknown,
  holder: Json,
  field: string,
  record: Json,
): boolean {
  if (typeof child !== "string" && typeof child !== "number") return false;
  if (isParentKey(key) && holder[key] === child) return true;
  if (key === "id") return holder[`${field}Id`] === child;
  if (!key.endsWith("Id") || key.length <= 2 || Object.hasOwn(holder, key)) return false;
  const named = holder[key.slice(0, -2)];
  return isObject(named) && named !== record && named.id === child;
}

interface Walk {
  defs: Defs;
  /** Fingerprints by pid: the first seen (a different one stays inline). */
  table: Map<string, Json>;
  /** Records with an id already written whole, by id. */
  written: Map<unknown, Json[]>;
}

/** `data` compacted along `schema` (the data node of a tool's output schema). */
export function compact(schema: Schema, defs: Defs, data: unknown): unknown {
  const state: Walk = { defs, table: new Map(), written: new Map() };
  collect(schema, data, state);
  const out = walk(schema, data, state, undefined, "");
  if (state.table.size === 0 || !isObject(out)) return out;
  return { ...out, [PROCESS_TABLE]: Object.fromEntries(state.table) };
}

/** A list of records with the fields they all hold alike stated once, if that is shorter. */
function withEvery(list: unknown[], everyKey: string): { list: unknown[]; every?: Json } {
  if (list.length < 2 || !list.every(isObject)) return { list };
  const [first, ...rest] = list as Json[];
  const alike = Object.keys(first).filter((key) =>
    rest.every((item) => Object.hasOwn(item, key) && same(item[key], first[key]))
  );
  if (alike.length === 0) return { list };
  const every = Object.fromEntries(alike.map((key) => [key, first[key]]));
  const shorter = (list as Json[]).map((item) =>
    Object.fromEntries(Object.entries(item).filter(([key]) => !alike.includes(key)))
  );
  const saved = JSON.stringify(list).length - JSON.stringify(shorter).length -
    JSON.stringify({ [everyKey]: every }).length;
  return saved > 0 ? { list: shorter, every } : { list };
}

/** First pass: every fingerprint by pid (the first seen; a different one stays inline). */
function collect(node: unknown, value: unknown, state: Walk): void {
  const schema = branch(node, value, state.defs);
  if (Array.isArray(value)) {
    if (isArray(schema)) { for (const item of value) collect(schema.items, item, state); }
    return;
  }
  if (!isObject(value)) return;
  if (isFingerprint(schema) && typeof value.pid === "number") {
    const key = String(value.pid);
    if (!state.table.has(key)) state.table.set(key, value);
    return;
  }
  if (isRecord(schema)) {
    for (const [key, child] of Object.entries(value)) {
      if (Object.hasOwn(schema.properties, key)) collect(schema.properties[key], child, state);
    }
  } else if (isMap(schema) && isObject(schema.additionalProperties)) {
    for (const child of Object.values(value)) {
      collect(schema.additionalProperties, child, state);
    }
  }
}

/** A record with an id and more to say than it. */
function isIdOf(value: Json): value is Json & { id: string | number } {
  return (typeof value.id === "string" || typeof value.id === "number") &&
    Object.keys(value).length > 1;
}

/** `holder`: the record a value sits in (directly, or in one of its lists or maps). */
function walk(
  node: unknown,
  value: unknown,
  state: Walk,
  holder: Json | undefined,
  field: string,
): unknown {
  const schema = branch(node, value, state.defs);
  if (Array.isArray(value)) {
    return isArray(schema)
      ? value.map((item) => walk(schema.items, item, state, holder, field))
      : value;
  }
  if (!isObject(value)) return value;
  if (isFingerprint(schema)) {
    const filed = state.table.get(String(value.pid));
    return filed !== undefined && same(filed, value) ? { pid: value.pid } : value;
  }
  if (isMap(schema)) {
    const values = schema.additionalProperties;
    if (!isObject(values)) return value;
    return Object.fromEntries(
      Object.entries(value).map((
        [key, child],
      ) => [key, walk(values, child, state, holder, field)]),
    );
  }
  if (!isRecord(schema)) return value;
  if (isIdOf(value) && Object.hasOwn(schema.properties, "id")) {
    const written = state.written.get(value.id) ?? [];
    if (written.some((record) => same(record, value))) return { id: value.id };
    state.written.set(value.id, [...written, value]);
  }
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    const declared = schema.properties[key];
    if (declared === undefined) {
      out[key] = child;
      continue;
    }
    if (
      !ALWAYS_WRITTEN.has(key) && leftOut(key, declared, child, state.defs, holder, field, value)
    ) {
      continue;
    }
    const walked = walk(declared, child, state, value, key);
    const everyKey = everyKeyOf(key);
    if (Array.isArray(walked) && Object.hasOwn(schema.properties, everyKey)) {
      const { list, every } = withEvery(walked, everyKey);
      out[key] = list;
      if (every !== undefined) out[everyKey] = every;
    } else {
      out[key] = walked;
    }
  }
  return out;
}

/** Whether the result still says what `child`, the value of field `key`, would say. */
function leftOut(
  key: string,
  declared: unknown,
  child: unknown,
  defs: Defs,
  holder: Json | undefined,
  field: string,
  record: Json,
): boolean {
  const empty = emptyOf(declared, defs);
  if (empty !== undefined) return same(child, empty);
  return holder !== undefined && statedByHolder(key, child, holder, field, record);
}

/** What a field reads as when absent, worked out once per schema node (see emptyValue). */
const emptyOfNode = new WeakMap<object, null | [] | Record<string, never> | undefined>();

function emptyOf(field: unknown, defs: Defs): null | [] | Record<string, never> | undefined {
  if (!isObject(field)) return undefined;
  if (!emptyOfNode.has(field)) emptyOfNode.set(field, emptyValue(field, defs));
  return emptyOfNode.get(field);
}

export { FINGERPRINT_FIELDS };
