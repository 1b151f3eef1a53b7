/**
 * How an output schema is laid out. A record is declared where it occurs, however deep; one
 * that occurs twice (and a process fingerprint) is declared once under `$defs`, named after
 * the field that holds it (`claimOrNull` when it is only ever "it or null"), and referred to
 * from each place it occurs, which keeps tools/list short (a definition used once would only
 * add its name and reference). Every key stays declared: a reader that resolves `$ref` (the
 * SDK client's validator, docs) sees the whole shape. Codex's code mode turns each tool's input
 * and output schemas into a TypeScript declaration in its model's context, and spells every
 * `$ref` out at each place (measured with Codex 0.171.0): there only what is declared counts,
 * not how.
 *
 * So two more things keep the schemas lean. A string field's values (`enum`, `const`) are
 * left to the data (a result states the value it has), except where they tell the branches of
 * a union apart (a history event's `eventType` says which payload it carries). And what the
 * compactor adds to a result is
 * declared without restating a record: the `processes` table by reference to the fingerprint,
 * and a list's `every<Record>` by the names of the fields it may hold (their values are typed
 * where the list's records declare them).
 */
import { isObject, type Json } from "../shared/json.ts";
import { PROCESS_TABLE } from "./compact/compactor.ts";
import { everyKeyOf, singular } from "./compact/schema_nodes.ts";

/** A process fingerprint is always one definition of this name: results refer to it by pid. */
export const FINGERPRINT_DEF = "fingerprint";

interface Hoisting {
  defs: Record<string, Json>;
  /** Each definition's JSON text → its name, so an identical record is declared once. */
  names: Map<string, string>;
  isFingerprint: (node: Json) => boolean;
  /** Records (as JSON text, null left aside) that occur more than once in the data. */
  repeated: ReadonlySet<string>;
}

/** `data` with its deep records moved under `$defs` (returned beside it). */
export function hoistRecords(
  data: Json,
  isFingerprint: (node: Json) => boolean,
): { data: Json; defs: Record<string, Json> } {
  const lean = withoutValueLists(data, false) as Json;
  const hoisting: Hoisting = { defs: {}, names: new Map(), isFingerprint, repeated: repeats(lean) };
  const laid = lay(lean, "data", hoisting) as Json;
  return withoutObjectTypes(withEveryLists(
    inlineSingleUse(nullableWhereOnlyNull(withProcessTable(laid, hoisting.defs), hoisting.defs)),
  ));
}

/**
 * A record that is never null is declared by its `properties` alone: they say it is an object,
 * and `"type": "object"` on each of several hundred records would repeat it (code mode reads a
 * node with properties as an object). One that may be null keeps `["object", "null"]`.
 */
function withoutObjectTypes(
  { data, defs }: { data: Json; defs: Record<string, Json> },
): { data: Json; defs: Record<string, Json> } {
  const lean = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(lean);
    if (!isObject(node)) return node;
    const record = node.type === "object" && isObject(node.properties);
    return Object.fromEntries(
      Object.entries(node).filter(([key]) => !(record && key === "type"))
        .map(([key, value]) => [key, key === "properties" ? leanFields(value) : lean(value)]),
    );
  };
  // A record's field names are names, not schema keywords (a field may be called `type`).
  const leanFields = (fields: unknown): unknown =>
    isObject(fields)
      ? Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, lean(field)]))
      : fields;
  return {
    data: lean(data) as Json,
    defs: Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, lean(def) as Json])),
  };
}

/**
 * Lists whose records the daemon sends with many values alike (a stack's endpoints share their
 * binding, state and lease times), and a page's `items`: the records holding them also declare
 * `every<Record>`, the fields all of the list's records hold alike, stated once
 * (src/results/compact/compactor.ts); any of a record's fields, none required.
 */
const LISTS_WITH_EVERY: ReadonlySet<string> = new Set(["endpoints", "leases", "providers"]);

/** Where a record's list `key` declares `every<Record>` beside it. */
function hasEvery(fields: Json, key: string): boolean {
  const list = fields[key];
  if (!isObject(list) || list.type !== "array" || !isObject(list.items)) return false;
  return LISTS_WITH_EVERY.has(key) || (key === "items" && isObject(fields.page));
}

/** Every field name a record (or each branch of a union of records) declares, sorted. */
function fieldNames(node: unknown, defs: Record<string, Json>): string[] {
  if (!isObject(node)) return [];
  if (typeof node.$ref === "string") {
    return fieldNames(defs[node.$ref.slice("#/$defs/".length)], defs);
  }
  const names = new Set<string>();
  if (isObject(node.properties)) Object.keys(node.properties).forEach((name) => names.add(name));
  if (Array.isArray(node.anyOf)) {
    node.anyOf.forEach((option) => fieldNames(option, defs).forEach((name) => names.add(name)));
  }
  return [...names].sort();
}

/**
 * `every<Record>` holds some of the list's record fields, each with the value every record of
 * the list has: its keys are declared by name (`propertyNames`), and each value is typed where
 * the list's records declare that field. Typing them again here would spell each list's record
 * out twice wherever a host writes schemas out in full (Codex's code mode inlines every
 * `$ref`), for a field a model reads from the record's own declaration anyway.
 */
function everyDeclaration(items: unknown, defs: Record<string, Json>): Json {
  return { type: "object", propertyNames: { enum: fieldNames(items, defs) } };
}

/** `data` and `defs` with `every<Record>` declared beside each list of LISTS_WITH_EVERY. */
function withEveryLists(
  { data, defs }: { data: Json; defs: Record<string, Json> },
): { data: Json; defs: Record<string, Json> } {
  const place = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(place);
    if (!isObject(node)) return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) out[key] = place(value);
    if (!isObject(node.properties)) return out;
    const fields: Json = {};
    for (const [key, value] of Object.entries(out.properties as Json)) {
      fields[key] = value;
      if (!hasEvery(node.properties, key)) continue;
      fields[everyKeyOf(key)] = everyDeclaration((value as Json).items, defs);
    }
    return { ...out, properties: fields };
  };
  return {
    data: place(data) as Json,
    defs: Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, place(def) as Json])),
  };
}

/**
 * Where a fingerprint can occur, `data` also declares the result's `processes` table: each
 * fingerprint once, by pid; elsewhere `{pid}` (src/results/compact/compactor.ts).
 */
function withProcessTable(data: Json, defs: Record<string, Json>): Json {
  if (!Object.hasOwn(defs, FINGERPRINT_DEF) || !isObject(data.properties)) return data;
  const table = { type: "object", additionalProperties: { $ref: `#/$defs/${FINGERPRINT_DEF}` } };
  return { ...data, properties: { ...data.properties, [PROCESS_TABLE]: table } };
}

const isRef = (node: unknown): node is { $ref: string } =>
  isObject(node) && typeof node.$ref === "string" && Object.keys(node).length === 1;

/** `{anyOf: [{$ref}, {type: "null"}]}`: a reference that may also be null. */
function nullableRef(node: unknown): string | undefined {
  if (!isObject(node) || !Array.isArray(node.anyOf) || Object.keys(node).length !== 1) {
    return undefined;
  }
  const [ref, nul] = node.anyOf;
  return isRef(ref) && isObject(nul) && nul.type === "null" && Object.keys(nul).length === 1
    ? ref.$ref
    : undefined;
}

/**
 * A definition only ever referred to as "it or null" admits null itself (`claimOrNull`), so
 * each place names it plainly; one also used without null keeps `anyOf` where null may be.
 */
function nullableWhereOnlyNull(
  data: Json,
  defs: Record<string, Json>,
): { data: Json; defs: Record<string, Json> } {
  const plain = new Set<string>();
  const seen = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(seen);
    if (!isObject(node)) return;
    if (nullableRef(node) !== undefined) return;
    if (isRef(node)) plain.add(node.$ref);
    Object.values(node).forEach(seen);
  };
  seen({ data, defs });
  const folded = (ref: string) => !plain.has(ref);
  const renamed = (ref: string) => folded(ref) ? `${ref}OrNull` : ref;
  const place = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(place);
    if (!isObject(node)) return node;
    const nullable = nullableRef(node);
    if (nullable !== undefined) {
      return folded(nullable)
        ? { $ref: renamed(nullable) }
        : { anyOf: [{ $ref: nullable }, { type: "null" }] };
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, place(value)]));
  };
  const out: Record<string, Json> = {};
  for (const [name, def] of Object.entries(defs)) {
    const ref = `#/$defs/${name}`;
    const laid = place(def) as Json;
    out[renamed(ref).slice("#/$defs/".length)] = folded(ref)
      ? { ...laid, type: ["object", "null"] }
      : laid;
  }
  return { data: place(data) as Json, defs: out };
}

/**
 * `node` without the value lists (`enum`, `const`) of its string fields, but for those of a
 * union's branches, which say which branch a value is.
 */
function withoutValueLists(node: unknown, inBranch: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutValueLists(item, inBranch));
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === "enum" || key === "const") && !inBranch && node.type === "string") continue;
    if (key === "anyOf" && Array.isArray(value)) {
      out.anyOf = value.map((option) => withoutValueLists(option, true));
    } else if (key === "properties" && isObject(value)) {
      // Only a branch's own fields tell it apart; what they hold is read like any other field.
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [
          name,
          withoutValueLists(child, inBranch && isObject(child) && child.type === "string"),
        ]),
      );
    } else {
      out[key] = withoutValueLists(value, false);
    }
  }
  return out;
}

/**
 * `data` and `defs` with each definition used once in place (a record that repeats inside one
 * that repeats is referred to once, from the outer one's definition).
 */
function inlineSingleUse(
  { data, defs }: { data: Json; defs: Record<string, Json> },
): { data: Json; defs: Record<string, Json> } {
  const text = JSON.stringify({ data, defs });
  const once = new Set(
    Object.keys(defs).filter((name) => text.split(`"#/$defs/${name}"`).length === 2),
  );
  const place = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(place);
    if (!isObject(node)) return node;
    const ref = typeof node.$ref === "string" ? node.$ref.slice("#/$defs/".length) : undefined;
    if (ref !== undefined && once.has(ref)) return place(defs[ref]);
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, place(value)]));
  };
  const kept = Object.entries(defs).filter(([name]) => !once.has(name));
  return {
    data: place(data) as Json,
    defs: Object.fromEntries(kept.map(([name, def]) => [name, place(def) as Json])),
  };
}

function isRecordNode(node: Json): boolean {
  return isObject(node.properties);
}

/** A record as the same record whether or not it may be null. */
const recordKey = (node: Json) => JSON.stringify({ ...node, type: "object" });

/** The records that occur more than once in `data`, nested ones counted where they sit. */
function repeats(data: Json): Set<string> {
  const seen = new Set<string>();
  const twice = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isObject(node)) return;
    if (isRecordNode(node) && node !== data) {
      const key = recordKey(node);
      if (seen.has(key)) twice.add(key);
      seen.add(key);
    }
    Object.values(node).forEach(visit);
  };
  visit(data);
  return twice;
}

function lay(node: unknown, field: string, h: Hoisting): unknown {
  if (Array.isArray(node)) return node.map((item) => lay(item, field, h));
  if (!isObject(node)) return node;
  const deep = h.isFingerprint(node) || h.repeated.has(recordKey(node));
  if (isRecordNode(node) && deep) {
    const types = ([] as unknown[]).concat(node.type ?? []);
    const ref = { $ref: `#/$defs/${define({ ...node, type: "object" }, field, h)}` };
    return types.includes("null") ? { anyOf: [ref, { type: "null" }] } : ref;
  }
  return layFields(node, field, h);
}

/** `node` itself in place, what it holds laid out. */
function layFields(node: Json, field: string, h: Hoisting): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" && isObject(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, lay(child, name, h)]),
      );
    } else {
      out[key] = lay(value, field, h);
    }
  }
  return out;
}

/** The definition's name: the field's own (a list's field in the singular), made unique. */
function define(record: Json, field: string, h: Hoisting): string {
  // Its own fields first: a record inside it may be hoisted too.
  const laid = layFields(record, field, h);
  const text = JSON.stringify(laid);
  const known = h.names.get(text);
  if (known !== undefined) return known;
  const base = h.isFingerprint(record) ? FINGERPRINT_DEF : singular(field);
  let name = base;
  for (let n = 2; Object.hasOwn(h.defs, name); n++) name = `${base}${n}`;
  h.defs[name] = laid;
  h.names.set(text, name);
  return name;
}
