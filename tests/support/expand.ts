/**
 * The inverse of the compact result form, from the result itself and nothing else: no rule is
 * read from the bridge, the instructions or any document. It knows what any reader of JSON
 * knows: the served output schema says which fields a record has and whether each may be
 * null, a list or a map, so an absent one of those is null, [] or {}; a nested record's `port`
 * or `…Id` that it lacks is the one the record holding it states (under the same key, as
 * `<field>Id` for the `id` of the record in `<field>`, or as the `id` of the record it names:
 * `stackId` is the `id` of the holder's `stack`); a process fingerprint written `{pid}` is the
 * one the result's `processes` table holds for that pid, and any other record written `{id}`
 * is the one the result states whole with that id; a list's `every<Record>` holds fields each
 * of its records has; and the result's `notShown` says in words which fields it left out:
 * those the same result states at another path, or shows with `detail: "full"`.
 * It never calls the compactor. Tests expand a compact result and compare it with the records
 * the tool got from the daemon.
 */
import listing from "../../src/catalogue/tools_list.json" with { type: "json" };
import { type DataSchema, dataSchemaOf } from "../../src/results/compact/mod.ts";
import { isObject, type Json } from "../../src/shared/json.ts";
// The expander reads schema nodes as the compactor does (the same record boundaries), no more.
import * as nodes from "../../src/results/compact/schema_nodes.ts";
import { readNote, restoreStated } from "./not_shown.ts";

type Table = Record<string, Json>;

/** The result's table of process fingerprints: a reader finds it by its name. */
const TABLE = "processes";
/** The result's note on what it leaves out, in words. */
const NOTE = "notShown";

interface Reader {
  defs: nodes.Defs;
  table: Table;
  /** Paths the note says are not shown: absent there means unknown here, not empty. */
  notShown: ReadonlySet<string>;
  /**
   * Records written `{id}`, to be replaced by the record of that id once all is expanded, with
   * the fields such a record may have.
   */
  pointers: Map<Json, { id: string | number; fields: string[] }>;
}

/** The data schema tools/list serves for `tool`. */
export function servedDataSchema(tool: string): DataSchema {
  const listed = listing.tools.find((entry) => entry.tool.name === tool)?.tool;
  const served = dataSchemaOf(listed?.outputSchema);
  if (served === undefined) throw new Error(`${tool} advertises no data schema`);
  return served;
}

/** What expanding a compact result gives: the records, and the fields it names as not shown. */
export interface Expanded {
  data: Json;
  /** Paths (`stack.definition`, `items[].payload`) the note says `detail: "full"` shows. */
  shownWithDetail: string[];
}

/** Expands one tool's compact data back to the daemon's records. */
export function expandResult(tool: string, data: Json): Json {
  return expandWhole(tool, data).data;
}

/** Expands one tool's compact data, and reads its note on what it leaves out. */
export function expandWhole(tool: string, data: Json): Expanded {
  const served = servedDataSchema(tool);
  const { [TABLE]: table, [NOTE]: note, ...rest } = data;
  const read = readNote(typeof note === "string" ? note : undefined);
  const reader: Reader = {
    defs: served.defs,
    table: (isObject(table) ? table : {}) as Table,
    notShown: new Set([...read.shownWithDetail, ...read.stated.map((entry) => entry.path)]),
    pointers: new Map(),
  };
  const schema = { ...served.data };
  // The table and the note are the reader's, not fields of the data: nothing to restore there.
  if (isObject(schema.properties)) {
    const { [TABLE]: _table, [NOTE]: _note, ...fields } = schema.properties;
    schema.properties = fields;
  }
  const expanded = expand(schema, rest, reader, undefined, "", "") as Json;
  const whole = resolvePointers(expanded, reader.pointers) as Json;
  return { data: restoreStated(whole, read.stated), shownWithDetail: read.shownWithDetail };
}

/**
 * `holder`: the record (as expanded) a value sits in, directly or in one of its lists; `at`:
 * the value's path in the data, as a note names it (`items[].payload`).
 */
function expand(
  node: unknown,
  value: unknown,
  reader: Reader,
  holder: Json | undefined,
  field: string,
  at: string,
): unknown {
  const schema = nodes.branch(node, value, reader.defs);
  if (Array.isArray(value)) {
    return nodes.isArray(schema)
      ? value.map((item) => expand(schema.items, item, reader, holder, field, `${at}[]`))
      : value;
  }
  if (!isObject(value)) return value;
  if (nodes.isFingerprint(schema)) {
    const keys = Object.keys(value);
    return keys.length === 1 && keys[0] === "pid" ? reader.table[String(value.pid)] : value;
  }
  if (nodes.isMap(schema)) {
    if (!isObject(schema.additionalProperties)) return value;
    const values = nodes.resolve(schema.additionalProperties, reader.defs);
    return Object.fromEntries(
      Object.entries(value).map((
        [key, child],
      ) => [key, expand(values, child, reader, holder, field, `${at}.${key}`)]),
    );
  }
  if (!nodes.isRecord(schema)) return value;
  const out: Json = withEveryGiven(schema.properties, value);
  // A record written `{id}` is, if the result states one whole, that one (see resolvePointers).
  if (isPointer(value, schema)) {
    reader.pointers.set(out, {
      id: value.id as string | number,
      fields: Object.keys(schema.properties),
    });
  }
  const everyKeys = new Set(Object.keys(schema.properties).map(nodes.everyKeyOf));
  const pathOf = (key: string) => at === "" ? key : `${at}.${key}`;
  for (const [key, fieldSchema] of Object.entries(schema.properties)) {
    if (Object.hasOwn(out, key) || everyKeys.has(key) || reader.notShown.has(pathOf(key))) continue;
    const empty = nodes.emptyValue(fieldSchema, reader.defs);
    if (empty !== undefined) out[key] = empty;
    else if (holder !== undefined) {
      const stated = statedBy(holder, key, field);
      if (stated !== undefined) out[key] = stated;
    }
  }
  for (const [key, child] of Object.entries(out)) {
    const fieldSchema = schema.properties[key];
    if (fieldSchema !== undefined) {
      out[key] = expand(fieldSchema, child, reader, out, key, pathOf(key));
    }
  }
  return out;
}

/** A record written `{id}`: its schema declares more fields than the id. */
function isPointer(value: Json, schema: { properties: Record<string, unknown> }): boolean {
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === "id" && Object.keys(schema.properties).length > 1;
}

/** `value` with each list's `every<Record>` given to its records (their own values first). */
function withEveryGiven(fields: Record<string, unknown>, value: Json): Json {
  const out: Json = { ...value };
  for (const key of Object.keys(fields)) {
    const everyKey = nodes.everyKeyOf(key);
    const every = value[everyKey];
    if (!isObject(every) || !Array.isArray(value[key])) continue;
    out[key] = (value[key] as unknown[]).map((item) =>
      isObject(item) ? { ...every, ...item } : item
    );
    delete out[everyKey];
  }
  return out;
}

/** What the record holding a nested record says of its field `key`, if anything. */
function statedBy(holder: Json, key: string, field: string): unknown {
  if ((key === "port" || key.endsWith("Id")) && Object.hasOwn(holder, key)) return holder[key];
  if (key === "id") return holder[`${field}Id`];
  if (!key.endsWith("Id") || key.length <= 2) return undefined;
  const named = holder[key.slice(0, -2)];
  return isObject(named) ? named.id ?? holder[key] : undefined;
}

/**
 * The data with each `{id}` record replaced by the first whole record of that id and kind (its
 * fields all ones the pointer's record may have) the result states, if any.
 */
function resolvePointers(
  data: unknown,
  pointers: Map<Json, { id: string | number; fields: string[] }>,
): unknown {
  if (pointers.size === 0) return data;
  const whole: Json[] = [];
  const gather = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(gather);
    if (!isObject(value)) return;
    if (!pointers.has(value) && Object.hasOwn(value, "id")) whole.push(value);
    Object.values(value).forEach(gather);
  };
  gather(data);
  const place = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(place);
    if (!isObject(value)) return value;
    const pointer = pointers.get(value);
    const stated = pointer === undefined
      ? undefined
      : whole.find((record) =>
        record.id === pointer.id && Object.keys(record).length > 1 &&
        Object.keys(record).every((key) => pointer.fields.includes(key))
      );
    if (stated !== undefined) return structuredClone(stated);
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, place(child)]));
  };
  return place(data);
}
