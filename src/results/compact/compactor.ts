/**
 * The compactor: walks a tool's data along its advertised output schema and leaves out only
 * what the result itself still says, in its own words, so a model needs no rule from anywhere
 * else to read it. A field is left out when:
 *
 * - it may be null and is null (the schema says so; no words needed);
 * - it is an empty list or map, and the note says `empty lists` (`empty maps`, `empty lists and
 *   maps`): every list (map) the result leaves out is empty;
 * - the record holding it states the same id: a nested record's `port` or `…Id` equal to the
 *   same key of its holder, its `id` equal to the holder's `<field>Id`, or its `<name>Id`
 *   equal to the `id` of the holder's `<name>` record; the note names it and where the value
 *   stands, `lease.claimId (= claim.id)`, read within the same list item
 *   (`items[].run.claimId (= items[].claim.id)`);
 * - it is a record with an id, or a list of records, that the result already states whole,
 *   both outside any list: `observed.inventory.claim (= observed.claim)`;
 * - it is a field of a process fingerprint other than `pid`: the fingerprint is stated once in
 *   the result's `processes` table, by pid, and written `{pid}` elsewhere, which the note says
 *   (`{pid} (in processes)`);
 * - in a list of records whose schema declares `every<Record>` beside it (a page's `items`, a
 *   stack's `endpoints`), every record holds it with the same value: it is stated once, in
 *   `every<Record>`, whose name says so.
 *
 * Words cost bytes too: each omission that needs them is taken only where it saves more than
 * its words cost (a page leaves out what a single record writes). Fields the schema does not
 * declare are written as they are.
 */
import {
  branch,
  type Defs,
  emptyValue,
  everyKeyOf,
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
const ALWAYS_WRITTEN: ReadonlySet<string> = new Set(["items", "missingCapabilities"]);

/** The note's words for each kind of omission (view.ts writes those of default views). */
export const NOTE_WORDS = {
  /** Parts naming no path: every list (map) the result leaves out is empty. */
  emptyLists: "empty lists",
  emptyMaps: "empty maps",
  emptyBoth: "empty lists and maps",
  /** After the paths of fields left out where they hold the value at `path`. */
  sameAs: (path: string) => `= ${path}`,
  /** The part that says fingerprints are written by pid. */
  byPid: "{pid} (in processes)",
} as const;

/** A field a nested record shares with the record that holds it: the parent's own id. */
function isParentKey(key: string): boolean {
  return key === "port" || key.endsWith("Id");
}

/** Where a value stands: its record, and that record's path in the data. */
interface Holder {
  record: Json;
  path: string;
}

/** `items[].run` + `port` → `items[].run.port`; at the root, the key alone. */
function joinPath(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

/**
 * Where the record holding a nested record states the value of its field `key`, if it does:
 * the path of that statement. `field` is the holder's field the nested record sits in.
 */
function statedAt(key: string, child: unknown, holder: Holder, field: string, record: Json) {
  if (typeof child !== "string" && typeof child !== "number") return undefined;
  const { record: held, path } = holder;
  if (isParentKey(key) && held[key] === child) return joinPath(path, key);
  if (key === "id") {
    return held[`${field}Id`] === child ? joinPath(path, `${field}Id`) : undefined;
  }
  if (!key.endsWith("Id") || key.length <= 2 || Object.hasOwn(held, key)) return undefined;
  const name = key.slice(0, -2);
  const named = held[name];
  return isObject(named) && named !== record && named.id === child
    ? joinPath(path, `${name}.id`)
    : undefined;
}

/**
 * One omission the walk could make: the field's path, the bytes leaving it out saves, and the
 * words that say so. An empty list or map is said by its kind for the whole result (`lists`,
 * `maps`), any other omission by its path followed by its words (`= claim.id`).
 */
interface Candidate {
  words: string;
  path: string;
  saves: number;
  empty?: "lists" | "maps";
}

interface Walk {
  defs: Defs;
  /** Fingerprints by pid: the first seen (a different one stays inline). */
  table: Map<string, Json>;
  /** Whether fingerprints found in the table are written `{pid}`. */
  byPid: boolean;
  /** Pids written `{pid}`, and the bytes that saved. */
  referenced: Map<string, number>;
  /** Records and lists written whole outside any list: their JSON → their path. */
  written: Map<string, string>;
  /** Whether to make a priced omission (the planning walk notes each and makes it). */
  take: (candidate: Candidate) => boolean;
}

/** What compacting gave: the data, and the parts of its note (none when nothing needs words). */
interface Compacted {
  data: unknown;
  parts: string[];
}

/**
 * `data` compacted along `schema` (the data node of a tool's output schema). `everyOmission`
 * makes every omission the rules allow, words or not (how one item of a long page is measured);
 * otherwise each that needs words is made only where it saves more than they cost, and
 * `notedAlready` says whether the result has a note of its own (the key is then paid for).
 */
export function compact(
  schema: Schema,
  defs: Defs,
  data: unknown,
  { everyOmission = false, notedAlready = false } = {},
): Compacted {
  const table = new Map<string, Json>();
  collect(schema, data, defs, table);
  const planned: Candidate[] = [];
  const plan = run(schema, defs, data, table, true, (candidate) => {
    planned.push(candidate);
    return true;
  });
  if (everyOmission) return { data: plan.data, parts: [] };
  const tableCost = tableBytes(plan.referenced, table);
  const saved = [...plan.referenced.values()].reduce((sum, bytes) => sum + bytes, 0);
  const decision = decide(planned, saved - tableCost, notedAlready);
  const chosen = new Set(decision.taken.map(key));
  const final = run(schema, defs, data, table, decision.byPid, (c) => chosen.has(key(c)));
  return { data: final.data, parts: decision.parts };
}

function run(
  schema: Schema,
  defs: Defs,
  data: unknown,
  table: Map<string, Json>,
  byPid: boolean,
  take: (candidate: Candidate) => boolean,
): { data: unknown; referenced: Map<string, number> } {
  const state: Walk = { defs, table, byPid, referenced: new Map(), written: new Map(), take };
  const out = walk(schema, data, state, undefined, "", "");
  if (state.referenced.size === 0 || !isObject(out)) return { data: out, referenced: new Map() };
  const used = [...table].filter(([pid]) => state.referenced.has(pid));
  return {
    data: { ...out, [PROCESS_TABLE]: Object.fromEntries(used) },
    referenced: state.referenced,
  };
}

const key = (c: Candidate) => `${c.words}\u0000${c.path}`;
const utf8 = new TextEncoder();
const jsonBytes = (value: unknown) => utf8.encode(JSON.stringify(value)).length;
/** `"key":value,` as it stands in a record. */
const entryBytes = (name: string, value: unknown) => jsonBytes({ [name]: value }) - 1;

/** What the `processes` table costs: each referenced fingerprint once, and the key. */
function tableBytes(referenced: ReadonlyMap<string, number>, table: ReadonlyMap<string, Json>) {
  if (referenced.size === 0) return 0;
  const used = [...table].filter(([pid]) => referenced.has(pid));
  return entryBytes(PROCESS_TABLE, Object.fromEntries(used)) + 2 + NOTE_WORDS.byPid.length;
}

/** `,"notShown":""`: what a result's first note costs before its words. */
const NOTE_KEY_BYTES = 14;

/**
 * Which priced omissions to make: per part of the note (the same words), each path whose
 * omissions save more than its name costs, and the part when its paths together save more
 * than its words; nothing at all when the note would cost more than it saves.
 */
function decide(
  planned: readonly Candidate[],
  byPidNet: number,
  notedAlready: boolean,
): { taken: Candidate[]; parts: string[]; byPid: boolean } {
  const empties = { lists: 0, maps: 0 };
  const groups = new Map<string, Map<string, number>>();
  for (const { words, path, saves, empty } of planned) {
    if (empty !== undefined) {
      empties[empty] += saves;
      continue;
    }
    const paths = groups.get(words) ?? new Map<string, number>();
    paths.set(path, (paths.get(path) ?? 0) + saves);
    groups.set(words, paths);
  }
  const parts: { text: string; net: number; paths: string[]; words: string }[] = [];
  const emptyWords = empties.lists > 0 && empties.maps > 0
    ? NOTE_WORDS.emptyBoth
    : empties.lists > 0
    ? NOTE_WORDS.emptyLists
    : NOTE_WORDS.emptyMaps;
  const emptyNet = empties.lists + empties.maps - emptyWords.length - 2;
  if (emptyNet > 0) parts.push({ text: emptyWords, net: emptyNet, paths: [], words: emptyWords });
  for (const [words, paths] of groups) {
    const kept = [...paths].filter(([path, saves]) => saves > path.length + 2);
    const net = kept.reduce((sum, [path, saves]) => sum + saves - path.length - 2, 0) -
      words.length - 3;
    if (kept.length === 0 || net <= 0) continue;
    const names = kept.map(([path]) => path);
    parts.push({ text: `${names.join(", ")} (${words})`, net, paths: names, words });
  }
  const byPid = byPidNet > 0;
  const total = parts.reduce((sum, part) => sum + part.net, 0) + (byPid ? byPidNet : 0);
  if (!notedAlready && total <= NOTE_KEY_BYTES) return { taken: [], parts: [], byPid: false };
  const taken = planned.filter((c) =>
    c.empty !== undefined
      ? emptyNet > 0
      : parts.some((part) => part.words === c.words && part.paths.includes(c.path))
  );
  return {
    taken,
    parts: [...(byPid ? [NOTE_WORDS.byPid] : []), ...parts.map((part) => part.text)],
    byPid,
  };
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
function collect(node: unknown, value: unknown, defs: Defs, table: Map<string, Json>): void {
  const schema = branch(node, value, defs);
  if (Array.isArray(value)) {
    if (isArray(schema)) { for (const item of value) collect(schema.items, item, defs, table); }
    return;
  }
  if (!isObject(value)) return;
  if (isFingerprint(schema) && typeof value.pid === "number") {
    const pid = String(value.pid);
    if (!table.has(pid)) table.set(pid, value);
    return;
  }
  if (isRecord(schema)) {
    for (const [key, child] of Object.entries(value)) {
      if (Object.hasOwn(schema.properties, key)) {
        collect(schema.properties[key], child, defs, table);
      }
    }
  } else if (isMap(schema) && isObject(schema.additionalProperties)) {
    for (const child of Object.values(value)) {
      collect(schema.additionalProperties, child, defs, table);
    }
  }
}

/**
 * `holder`: the record a value sits in (directly, or in one of its lists or maps), `field` the
 * holder's field it sits in, `path` the value's own path (`items[].run`, `components.*`).
 */
function walk(
  node: unknown,
  value: unknown,
  state: Walk,
  holder: Holder | undefined,
  field: string,
  path: string,
): unknown {
  const schema = branch(node, value, state.defs);
  if (Array.isArray(value)) {
    return isArray(schema)
      ? value.map((item) => walk(schema.items, item, state, holder, field, `${path}[]`))
      : value;
  }
  if (!isObject(value)) return value;
  if (isFingerprint(schema)) return byPid(value, state);
  if (isMap(schema)) {
    const values = schema.additionalProperties;
    if (!isObject(values)) return value;
    return Object.fromEntries(
      Object.entries(value).map((
        [key, child],
      ) => [key, walk(values, child, state, holder, field, joinPath(path, "*"))]),
    );
  }
  if (!isRecord(schema)) return value;
  const out: Json = {};
  const here: Holder = { record: value, path };
  for (const [key, child] of Object.entries(value)) {
    const declared = schema.properties[key];
    if (declared === undefined) {
      out[key] = child;
      continue;
    }
    const at = joinPath(path, key);
    if (!ALWAYS_WRITTEN.has(key) && leftOut(key, declared, child, state, holder, field, at, here)) {
      continue;
    }
    const walked = walk(declared, child, state, here, key, at);
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

/** A fingerprint as written: `{pid}` where the table holds the same one and the note says so. */
function byPid(value: Json, state: Walk): Json {
  const pid = String(value.pid);
  const filed = state.table.get(pid);
  if (!state.byPid || filed === undefined || !same(filed, value)) return value;
  const written = { pid: value.pid };
  state.referenced.set(
    pid,
    (state.referenced.get(pid) ?? 0) + jsonBytes(value) - jsonBytes(written),
  );
  return written;
}

/** Whether the field `key` of the record at `here` is left out (see the rules above). */
function leftOut(
  key: string,
  declared: unknown,
  child: unknown,
  state: Walk,
  holder: Holder | undefined,
  field: string,
  at: string,
  here: Holder,
): boolean {
  const empty = emptyOf(declared, state.defs);
  if (child === null) return empty === null;
  const saves = entryBytes(key, child) + 1;
  if (empty !== undefined && empty !== null && same(child, empty)) {
    const kind = Array.isArray(empty) ? "lists" : "maps";
    return state.take({ words: kind, path: at, saves, empty: kind });
  }
  const stated = holder && statedAt(key, child, holder, field, here.record);
  if (stated !== undefined) {
    return state.take({ words: NOTE_WORDS.sameAs(stated), path: at, saves });
  }
  return metBefore(child, state, at, saves);
}

/**
 * Whether `child`, at `at`, is a record with an id, or a list of records, that the result
 * already states whole at another path outside any list (and is left out, the note saying
 * where); otherwise such a value is remembered where it is written. Only an entity (or a list
 * of them) is the same thing twice: two equal records without an id may be alike by chance.
 */
function metBefore(child: unknown, state: Walk, at: string, saves: number): boolean {
  if (!isEntity(child) || at.includes("[]") || at.includes("*")) return false;
  const text = JSON.stringify(child);
  const first = state.written.get(text);
  if (first !== undefined) return state.take({ words: NOTE_WORDS.sameAs(first), path: at, saves });
  state.written.set(text, at);
  return false;
}

/** A record with an id and more to say than it, or a list of records. */
function isEntity(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.every(isObject);
  return isObject(value) && (typeof value.id === "string" || typeof value.id === "number") &&
    Object.keys(value).length > 1;
}

/** What a field reads as when absent, worked out once per schema node (see emptyValue). */
const emptyOfNode = new WeakMap<object, null | [] | Record<string, never> | undefined>();

function emptyOf(field: unknown, defs: Defs): null | [] | Record<string, never> | undefined {
  if (!isObject(field)) return undefined;
  if (!emptyOfNode.has(field)) emptyOfNode.set(field, emptyValue(field, defs));
  return emptyOfNode.get(field);
}
