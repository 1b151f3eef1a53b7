/**
 * The inverse of the compact result form, from the result itself and nothing else: no rule is
 * read from the bridge, the instructions or any document. It knows what any reader of JSON
 * knows: the served output schema says which fields a record has and whether each may be
 * null, a list or a map, so an absent one of those is null, [] or {}; a record's `port` or
 * `…Id` that its own record lacks is the one the record holding it states; a process
 * fingerprint written `{pid}` is the one the result's `processes` table holds for that pid;
 * and a page's `everyItem` holds fields each of its items has.
 * It never calls the compactor. Tests expand a compact result and compare it with the records
 * the tool got from the daemon.
 */
import listing from "../../src/catalogue/tools_list.json" with { type: "json" };
import { type DataSchema, dataSchemaOf } from "../../src/results/compact/mod.ts";
import { isObject, type Json } from "../../src/shared/json.ts";
// The expander reads schema nodes as the compactor does (the same record boundaries), no more.
import * as nodes from "../../src/results/compact/schema_nodes.ts";

type Table = Record<string, Json>;

/** The result's table of process fingerprints: a reader finds it by its name. */
const TABLE = "processes";
/** A page's fields that every item has. */
const EVERY_ITEM = "everyItem";

interface Reader {
  defs: nodes.Defs;
  table: Table;
}

/** The data schema tools/list serves for `tool`. */
export function servedDataSchema(tool: string): DataSchema {
  const listed = listing.tools.find((entry) => entry.tool.name === tool)?.tool;
  const served = dataSchemaOf(listed?.outputSchema);
  if (served === undefined) throw new Error(`${tool} advertises no data schema`);
  return served;
}

/** Expands one tool's compact data back to the daemon's records. */
export function expandResult(tool: string, data: Json): Json {
  const served = servedDataSchema(tool);
  const { [TABLE]: table, ...paged } = data;
  const rest = everyItemInItems(paged);
  const reader: Reader = { defs: served.defs, table: (isObject(table) ? table : {}) as Table };
  const schema = { ...served.data };
  // The table is the reader's, not a field of the data: nothing to restore there.
  if (isObject(schema.properties)) {
    const { [TABLE]: _table, [EVERY_ITEM]: _every, ...fields } = schema.properties;
    schema.properties = fields;
  }
  return expand(schema, rest, reader, undefined) as Json;
}

/** A page with its `everyItem` fields given to each of its items. */
function everyItemInItems(page: Json): Json {
  const { [EVERY_ITEM]: every, ...rest } = page;
  if (!isObject(every) || !Array.isArray(rest.items)) return rest;
  return {
    ...rest,
    items: rest.items.map((item) => isObject(item) ? { ...every, ...item } : item),
  };
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
    const keys = Object.keys(value);
    return keys.length === 1 && keys[0] === "pid" ? reader.table[String(value.pid)] : value;
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
  for (const [field, fieldSchema] of Object.entries(schema.properties)) {
    if (Object.hasOwn(out, field)) continue;
    const empty = nodes.emptyValue(fieldSchema, reader.defs);
    if (empty !== undefined) out[field] = empty;
    else if (sharedWithParent(field) && parent !== undefined && Object.hasOwn(parent, field)) {
      out[field] = parent[field];
    }
  }
  for (const [key, child] of Object.entries(out)) {
    const field = schema.properties[key];
    if (field !== undefined) out[key] = expand(field, child, reader, out);
  }
  return out;
}

/** An id a nested record shares with the record holding it: its port, or a `…Id`. */
function sharedWithParent(field: string): boolean {
  return field === "port" || field.endsWith("Id");
}
