/**
 * Reading the advertised output schemas (JSON Schema as tools/list serves it): which node
 * describes a value, and what kind of node it is. The compactor and the round-trip expander
 * walk data and schema together with these, so both see the same record boundaries.
 */
import { isObject } from "../../shared/json.ts";

/** A process fingerprint's fields: a record of exactly these is one (shapes.processFingerprint). */
export const FINGERPRINT_FIELDS = [
  "pid",
  "parentPid",
  "uid",
  "startTime",
  "executable",
  "command",
  "workingDirectory",
] as const;

export type Schema = Record<string, unknown>;
export type Defs = Record<string, Schema>;

/** The node a `$ref` points at (only `#/$defs/<name>` is used), or the node itself. */
export function resolve(node: unknown, defs: Defs): Schema {
  if (!isObject(node)) return {};
  const ref = node.$ref;
  if (typeof ref === "string" && ref.startsWith("#/$defs/")) {
    return resolve(defs[ref.slice("#/$defs/".length)], defs);
  }
  return node;
}

// Schemas are read on every call; what each node is, is worked out once per node.
const typesOf = new WeakMap<Schema, unknown[]>();
const optionsOf = new WeakMap<Schema, Schema[]>();
const fingerprints = new WeakMap<Schema, boolean>();

/** A node's types; a record declared by its `properties` alone is an object (output_defs.ts). */
function types(node: Schema): unknown[] {
  let known = typesOf.get(node);
  if (known === undefined) {
    const declared = node.type ?? (isObject(node.properties) ? "object" : []);
    typesOf.set(node, known = ([] as unknown[]).concat(declared));
  }
  return known;
}

/**
 * The branch of a union (`anyOf`, or a nullable type list) that fits `value`: for an object,
 * the first record whose fixed-value fields (`const`, `enum`) the value's own fields match —
 * a history event by its eventType.
 */
export function branch(node: unknown, value: unknown, defs: Defs): Schema {
  const resolved = resolve(node, defs);
  if (!Array.isArray(resolved.anyOf)) return resolved;
  let options = optionsOf.get(resolved);
  if (options === undefined) {
    optionsOf.set(resolved, options = resolved.anyOf.map((option) => resolve(option, defs)));
  }
  if (isObject(value)) {
    const fitting = options.find((option) => isRecord(option) && discriminated(option, value));
    if (fitting !== undefined) return fitting;
  }
  const want = value === null
    ? "null"
    : Array.isArray(value)
    ? "array"
    : typeof value === "object"
    ? "object"
    : undefined;
  return options.find((option) => types(option).includes(want)) ??
    options.find((option) => !types(option).includes("null")) ?? resolved;
}

/** Whether every fixed-value field of `record` that `value` has holds one of its values. */
function discriminated(
  record: Schema & { properties: Record<string, unknown> },
  value: Record<string, unknown>,
): boolean {
  return Object.entries(record.properties).every(([key, field]) => {
    if (!Object.hasOwn(value, key) || !isObject(field)) return true;
    if (Object.hasOwn(field, "const")) return field.const === value[key];
    return !Array.isArray(field.enum) || field.enum.includes(value[key]);
  });
}

function admitsNull(node: unknown, defs: Defs): boolean {
  const resolved = resolve(node, defs);
  if (Array.isArray(resolved.anyOf)) return resolved.anyOf.some((o) => admitsNull(o, defs));
  return types(resolved).includes("null");
}

/** An object node with declared properties: a record whose fields the rules may leave out. */
export function isRecord(node: Schema): node is Schema & { properties: Record<string, unknown> } {
  return types(node).includes("object") && isObject(node.properties);
}

/** An object node without declared properties: a map (its keys are data, e.g. names). */
export function isMap(node: Schema): boolean {
  return types(node).includes("object") && !isObject(node.properties);
}

export function isArray(node: Schema): boolean {
  return types(node).includes("array");
}

/** Whether `node` is a process fingerprint (a record of exactly the fingerprint's fields). */
export function isFingerprint(node: Schema): boolean {
  let known = fingerprints.get(node);
  if (known === undefined) {
    const keys = isRecord(node) ? Object.keys(node.properties) : [];
    known = keys.length === FINGERPRINT_FIELDS.length &&
      FINGERPRINT_FIELDS.every((field) => keys.includes(field));
    fingerprints.set(node, known);
  }
  return known;
}

/**
 * What a field's absence means when no rule names it: null where the field may be null, else
 * [] for a list and {} for a map; undefined for a field that is always written.
 */
export function emptyValue(
  node: unknown,
  defs: Defs,
): null | [] | Record<string, never> | undefined {
  if (admitsNull(node, defs)) return null;
  const resolved = branch(node, undefined, defs);
  if (isArray(resolved)) return [];
  if (isMap(resolved)) return {};
  return undefined;
}

export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => same(v, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && same(a[key], b[key]));
}

/** `listeners` → `listener`, `addresses` → `address`, `dependencies` → `dependency`. */
export function singular(field: string): string {
  if (field.endsWith("ies")) return `${field.slice(0, -3)}y`;
  if (field.endsWith("sses")) return field.slice(0, -2);
  if (field.endsWith("s") && !field.endsWith("ss")) return field.slice(0, -1);
  return field;
}

/**
 * The field beside a list that states once what all its records hold alike: `items` →
 * `everyItem`, `endpoints` → `everyEndpoint`.
 */
export function everyKeyOf(list: string): string {
  const one = singular(list);
  return `every${one.charAt(0).toUpperCase()}${one.slice(1)}`;
}
