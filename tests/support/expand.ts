/**
 * The inverse of the compact result form, from the result itself and nothing else: no rule is
 * read from the bridge, the instructions or any document. It knows what any reader of JSON
 * knows: the served output schema says which fields a record has and whether each may be
 * null, so an absent one that may be null is null; a list's `every<Record>` holds fields each
 * of its records has; and the result's `notShown` says in words what else it left out
 * (./not_shown.ts): empty lists and maps, fingerprints written `{pid}` that its `processes`
 * table holds, fields whose value the same result states at another path, and fields that
 * `detail: "full"` or another tool shows. Nothing else is restored: a field left out without
 * those words stays missing, and the tests that compare name it.
 * It never calls the compactor. Tests expand a compact result and compare it with the records
 * the tool got from the daemon.
 */
import listing from "../../src/catalogue/tools_list.json" with { type: "json" };
import { type DataSchema, dataSchemaOf } from "../../src/results/compact/mod.ts";
import { isObject, type Json } from "../../src/shared/json.ts";
// The expander reads schema nodes as the compactor does (the same record boundaries), no more.
import * as nodes from "../../src/results/compact/schema_nodes.ts";
import { type Note, readNote, restoreStated } from "./not_shown.ts";

type Table = Record<string, Json>;

/** The result's table of process fingerprints: a reader finds it by its name. */
const TABLE = "processes";
/** The result's note on what it leaves out, in words. */
const NOTE = "notShown";

interface Reader {
  defs: nodes.Defs;
  /** The `processes` table, when the note says fingerprints are written `{pid}`. */
  table?: Table;
  note: Note;
  /** Paths the note names: absent there means stated elsewhere, not empty. */
  named: ReadonlySet<string>;
}

/** The data schema tools/list serves for `tool`. */
export function servedDataSchema(tool: string): DataSchema {
  const listed = listing.tools.find((entry) => entry.tool.name === tool)?.tool;
  const served = dataSchemaOf(listed?.outputSchema);
  if (served === undefined) throw new Error(`${tool} advertises no data schema`);
  return served;
}

/** What expanding a compact result gives: the records, and its note as read. */
export interface Expanded {
  data: Json;
  note: Note;
}

/** Expands one tool's compact data back to the daemon's records. */
export function expandResult(tool: string, data: Json): Json {
  return expandWhole(tool, data).data;
}

/** Expands one tool's compact data, and reads its note on what it leaves out. */
export function expandWhole(tool: string, data: Json): Expanded {
  const served = servedDataSchema(tool);
  const { [TABLE]: table, [NOTE]: words, ...rest } = data;
  const note = readNote(typeof words === "string" ? words : undefined);
  const reader: Reader = {
    defs: served.defs,
    table: note.byPid && isObject(table) ? table as Table : undefined,
    note,
    named: new Set([
      ...note.shownWithDetail,
      ...note.shownBy.map((entry) => entry.path),
      ...note.stated.map((entry) => entry.path),
    ]),
  };
  const schema = { ...served.data };
  // The table and the note are the reader's, not fields of the data: nothing to restore there.
  if (isObject(schema.properties)) {
    const { [TABLE]: _table, [NOTE]: _note, ...fields } = schema.properties;
    schema.properties = fields;
  }
  const expanded = expand(schema, rest, reader, "") as Json;
  return { data: restoreStated(expanded, note.stated), note };
}

/** `at`: the value's path in the data, as a note names it (`items[].payload`, `components.*`). */
function expand(node: unknown, value: unknown, reader: Reader, at: string): unknown {
  const schema = nodes.branch(node, value, reader.defs);
  if (Array.isArray(value)) {
    return nodes.isArray(schema)
      ? value.map((item) => expand(schema.items, item, reader, `${at}[]`))
      : value;
  }
  if (!isObject(value)) return value;
  if (nodes.isFingerprint(schema)) {
    const keys = Object.keys(value);
    const byPid = keys.length === 1 && keys[0] === "pid";
    return (byPid ? reader.table?.[String(value.pid)] : undefined) ?? value;
  }
  if (nodes.isMap(schema)) {
    if (!isObject(schema.additionalProperties)) return value;
    const values = nodes.resolve(schema.additionalProperties, reader.defs);
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [key, expand(values, child, reader, `${at}.*`)]),
    );
  }
  if (!nodes.isRecord(schema)) return value;
  const out: Json = withEveryGiven(schema.properties, value);
  const everyKeys = new Set(Object.keys(schema.properties).map(nodes.everyKeyOf));
  const pathOf = (key: string) => at === "" ? key : `${at}.${key}`;
  for (const [key, fieldSchema] of Object.entries(schema.properties)) {
    if (Object.hasOwn(out, key) || everyKeys.has(key) || reader.named.has(pathOf(key))) continue;
    const empty = nodes.emptyValue(fieldSchema, reader.defs);
    if (empty === null) out[key] = null;
    else if (Array.isArray(empty) && reader.note.emptyLists) out[key] = [];
    else if (empty !== undefined && !Array.isArray(empty) && reader.note.emptyMaps) out[key] = {};
  }
  for (const [key, child] of Object.entries(out)) {
    const fieldSchema = schema.properties[key];
    if (fieldSchema !== undefined) out[key] = expand(fieldSchema, child, reader, pathOf(key));
  }
  return out;
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
