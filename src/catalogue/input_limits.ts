/**
 * Reads the bounds back out of an advertised input schema (JSON Schema as tools/list serves
 * it): what bounds each string, list and map, and which have none. The test that every input
 * is bounded and the generated table in docs/limits.md both walk schemas with this.
 */
import { INPUT_BOUNDS } from "../shared/input_bounds.ts";

type Schema = Record<string, unknown>;

/**
 * Inputs that take any JSON value, which JSON Schema cannot bound: each is refused over the
 * size its INPUT_BOUNDS entry states, by its tool's own check.
 */
export const ANY_JSON_INPUTS: Readonly<Record<string, keyof typeof INPUT_BOUNDS>> = {
  "portreeve_stack_definition_validate.definition": "definition",
};

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
export function patternBound(pattern: string): number {
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
export interface BoundedInput {
  path: string;
  bound: string;
}

/**
 * Every string, list and map input under `raw` with what bounds it; an unbounded one is
 * reported with the bound "none". `path` starts as the tool's name.
 */
export function inputBounds(raw: Schema, root: Schema, path: string): BoundedInput[] {
  const out: BoundedInput[] = [];
  const s = resolve(raw, root);
  if (Array.isArray(s.anyOf)) {
    (s.anyOf as Schema[]).forEach((o) => out.push(...inputBounds(o, root, path)));
    return out;
  }
  if ("const" in s || Array.isArray(s.enum)) return out;
  const types = [s.type].flat().filter((t) => t !== undefined);
  if (types.length === 0) out.push({ path, bound: anyJsonBound(path) });
  if (types.includes("string")) out.push({ path, bound: describeString(s) });
  if (types.includes("array")) {
    out.push({ path, bound: typeof s.maxItems === "number" ? `≤ ${s.maxItems} items` : "none" });
    if (typeof s.items === "object") out.push(...inputBounds(s.items as Schema, root, `${path}[]`));
  }
  if (types.includes("object")) {
    for (const [key, child] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
      out.push(...inputBounds(child, root, `${path}.${key}`));
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
      if (typeof values === "object") out.push(...inputBounds(values as Schema, root, `${path}{}`));
    }
  }
  return out;
}

function anyJsonBound(path: string): string {
  if (!Object.hasOwn(ANY_JSON_INPUTS, path)) return "none";
  const { max, unit } = INPUT_BOUNDS[ANY_JSON_INPUTS[path]];
  return `any JSON, ≤ ${max.toLocaleString("en-US")} ${unit}`;
}

function describeString(s: Schema): string {
  if (typeof s.maxLength === "number") return `≤ ${s.maxLength}`;
  if (s.format === "uuid") return "UUID (36)";
  const fixed = typeof s.pattern === "string" ? patternBound(s.pattern) : Infinity;
  return fixed === Infinity ? "none" : `pattern (≤ ${fixed})`;
}
