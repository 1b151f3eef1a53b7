/**
 * Reads the bounds back out of an advertised input schema (JSON Schema as tools/list serves
 * it): what bounds each string, list and map, and which have none. The test that every input
 * is bounded and the generated table in docs/limits.md both walk schemas with this.
 */
import { INPUT_BOUNDS } from "../shared/input_bounds.ts";
import type { Schema } from "./compact/schema_nodes.ts";

/**
 * A tool's inputs that take any JSON value, which JSON Schema cannot bound, by field path:
 * each is refused over the size its INPUT_BOUNDS entry states, by the tool's own check.
 */
export type AnyJsonInputs = Readonly<Record<string, keyof typeof INPUT_BOUNDS>>;

export function resolve(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/$defs/")) return schema;
  const { $ref: _ref, ...rest } = schema;
  return { ...resolve((root.$defs as Record<string, Schema>)[ref.slice(8)], root), ...rest };
}

/**
 * The longest string `s` admits: its maxLength, or the length a format or an anchored pattern
 * without unbounded repetition fixes; Infinity when nothing bounds it.
 */
export function stringBound(s: Schema): number {
  if (typeof s.maxLength === "number") return s.maxLength;
  if (s.format === "uuid") return 36;
  if (typeof s.pattern === "string") return patternBound(s.pattern);
  return Infinity;
}

/** For `^…$` patterns of literals, classes and bounded repeats: their longest match. */
function patternBound(pattern: string): number {
  if (!pattern.startsWith("^") || !pattern.endsWith("$")) return Infinity;
  const body = pattern.slice(1, -1);
  if (/[|()]/.test(body.replace(/\\./g, "").replace(/\[[^\]]*\]/g, ""))) return Infinity;
  let total = 0;
  const atom = /(\\.|\[[^\]]*\]|[^\\[])(\{(\d+)(,(\d*))?\}|[*+?])?/g;
  for (const match of body.matchAll(atom)) {
    const [, , quantifier, exact, comma, upper] = match;
    if (quantifier === "*" || quantifier === "+") return Infinity;
    if (exact === undefined) total += 1;
    else if (comma === undefined) total += Number(exact);
    else if (upper === "") return Infinity;
    else total += Number(upper);
  }
  return total;
}

/** One bounded input: where (dotted; `[]` a list's items, `{}` a map's values) and its bound. */
interface BoundedInput {
  path: string;
  bound: string;
}

/**
 * Every string, list and map input under `raw` with what bounds it; an unbounded one is
 * reported with the bound "none". `path` starts as the tool's name; `anyJson` is the tool's
 * own declaration of its any-JSON inputs.
 */
export function inputBounds(
  raw: Schema,
  root: Schema,
  path: string,
  anyJson: AnyJsonInputs = {},
): BoundedInput[] {
  const out: BoundedInput[] = [];
  const s = resolve(raw, root);
  const walk = (child: Schema, at: string) => out.push(...inputBounds(child, root, at, anyJson));
  if (Array.isArray(s.anyOf)) {
    (s.anyOf as Schema[]).forEach((o) => walk(o, path));
    return out;
  }
  if ("const" in s || Array.isArray(s.enum)) return out;
  const types = [s.type].flat().filter((t) => t !== undefined);
  if (types.length === 0) out.push({ path, bound: anyJsonBound(path, anyJson) });
  if (types.includes("string")) out.push({ path, bound: describeString(s) });
  if (types.includes("array")) {
    out.push({ path, bound: typeof s.maxItems === "number" ? `≤ ${s.maxItems} items` : "none" });
    if (typeof s.items === "object") walk(s.items as Schema, `${path}[]`);
  }
  if (types.includes("object")) {
    for (const [key, child] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
      walk(child, `${path}.${key}`);
    }
    // A closed object (the server refuses unknown keys; the schema leaves the `false` to the
    // instructions) lists its properties; an object that takes other keys is a map.
    const values = s.additionalProperties;
    const map = typeof values === "object" || values === true || s.properties === undefined;
    if (values !== false && map) {
      const keys = ((s.propertyNames ?? {}) as Schema).maxLength;
      const bounded = typeof s.maxProperties === "number" && typeof keys === "number";
      out.push({
        path,
        bound: bounded ? `≤ ${s.maxProperties} entries, keys ≤ ${keys}` : "none",
      });
      if (typeof values === "object") walk(values as Schema, `${path}{}`);
    }
  }
  return out;
}

/** The bound an any-JSON input's tool declares for it (`path`: the tool's name, then fields). */
function anyJsonBound(path: string, anyJson: AnyJsonInputs): string {
  const field = path.slice(path.indexOf(".") + 1);
  if (!path.includes(".") || !Object.hasOwn(anyJson, field)) return "none";
  const { max, unit } = INPUT_BOUNDS[anyJson[field]];
  return `any JSON, ≤ ${max.toLocaleString("en-US")} ${unit}`;
}

/** `stringBound` in words, saying what gives the bound. */
function describeString(s: Schema): string {
  const max = stringBound(s);
  if (max === Infinity) return "none";
  if (typeof s.maxLength === "number") return `≤ ${max}`;
  return s.format === "uuid" ? "UUID (36)" : `pattern (≤ ${max})`;
}
