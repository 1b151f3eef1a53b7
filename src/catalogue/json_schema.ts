/**
 * zod → compact JSON Schema for tools/list. Hosts pay for every byte in the model's context,
 * so the advertised schemas say what an agent needs and no more; zod still validates every
 * argument strictly at run time.
 *
 * Inputs drop what a format already says (zod's 140-character UUID regex, the date-time
 * regex) and safe-integer bounds, and keep `additionalProperties: false`: every input object
 * is strict, and a schema that looked open would promise what the server refuses. Outputs
 * also drop `required`, patterns and numeric bounds, fold `anyOf [X, null]` into a type
 * list, and stay open: the daemon may add fields, and we document what agents act on.
 */
import { z } from "zod";

type Json = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;

export function inputJsonSchema(schema: z.ZodType): Json {
  // A sub-schema used twice in one tool (e.g. before/after evidence) is written once under
  // $defs and referenced, rather than spelled out twice.
  const full = z.toJSONSchema(schema, { io: "input", unrepresentable: "any", reused: "ref" });
  return compact(inlineSingleUse(full as Json), false);
}

/**
 * zod also extracts a sub-schema it meets twice only because a refinement cloned its parent
 * (a refined object or map); a definition referenced once is written in place instead.
 */
function inlineSingleUse(root: Json): Json {
  const defs = root.$defs as Record<string, Json> | undefined;
  if (!defs) return root;
  const uses = new Map<string, number>();
  const count = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(count);
    if (typeof value !== "object" || value === null) return;
    const ref = (value as Json).$ref;
    if (typeof ref === "string") uses.set(ref, (uses.get(ref) ?? 0) + 1);
    Object.values(value).forEach(count);
  };
  count(root);
  const once = (ref: unknown) => typeof ref === "string" && uses.get(ref) === 1;
  const inline = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(inline);
    if (typeof value !== "object" || value === null) return value;
    const { $ref: ref, ...rest } = value as Json;
    const node = once(ref) ? { ...defs[(ref as string).slice("#/$defs/".length)], ...rest } : value;
    return Object.fromEntries(
      Object.entries(node as Json).map((
        [key, child],
      ) => [key, key === "$defs" ? child : inline(child)]),
    );
  };
  const { $defs: _defs, ...body } = inline(root) as Json;
  const kept = Object.entries(defs).filter(([name]) => !once(`#/$defs/${name}`))
    .map(([name, def]) => [name, inline(def)]);
  return kept.length > 0 ? { ...body, $defs: Object.fromEntries(kept) } : body;
}

/**
 * Objects nested deeper than this are advertised as plain objects: the fields agents act on
 * sit near the top (ids, states, ports, timestamps), and the full record is still returned.
 */
const OUTPUT_DEPTH = 2;

export function outputJsonSchema(schema: z.ZodType): Json {
  const full = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as Json;
  return compact(truncate(full, 0), true);
}

function truncate(node: Json, depth: number): Json {
  const types = ([] as unknown[]).concat(node.type ?? []);
  if (depth > OUTPUT_DEPTH && (types.includes("object") || types.includes("array"))) {
    return { type: node.type };
  }
  if (Array.isArray(node.anyOf)) {
    return { ...node, anyOf: (node.anyOf as Json[]).map((option) => truncate(option, depth)) };
  }
  const out: Json = { ...node };
  if (node.properties) {
    out.properties = Object.fromEntries(
      Object.entries(node.properties as Record<string, Json>).map((
        [k, v],
      ) => [k, truncate(v, depth + 1)]),
    );
  }
  if (node.items && typeof node.items === "object") {
    out.items = truncate(node.items as Json, depth + 1);
  }
  if (node.additionalProperties && typeof node.additionalProperties === "object") {
    out.additionalProperties = truncate(node.additionalProperties as Json, depth + 1);
  }
  return out;
}

function compact(node: Json, output: boolean): Json {
  const nullable = foldNullable(node);
  if (nullable) return compact(nullable, output);
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema") continue;
    if (key === "pattern" && (output || typeof node.format === "string")) continue;
    if (
      (key === "maximum" || key === "minimum") && (output || Math.abs(value as number) === SAFE)
    ) continue;
    if (output && (key === "required" || key === "exclusiveMinimum")) continue;
    if (key === "propertyNames" && isPlainString(value)) continue;
    if (key === "propertyNames" && isObject(value)) {
      // JSON object keys are always strings: only the key's bounds say anything.
      const { type: _string, ...bounds } = value;
      out[key] = walk(bounds, output);
      continue;
    }
    if (key === "additionalProperties" && (isEmpty(value) || (output && value === false))) {
      continue;
    }
    out[key] = walk(value, output);
  }
  return out;
}

/** `anyOf: [{type: T, …}, {type: "null"}]` → `{type: [T, "null"], …}` (siblings kept). */
function foldNullable(node: Json): Json | undefined {
  const { anyOf: options, ...siblings } = node;
  if (!Array.isArray(options) || options.length !== 2) return undefined;
  const [a, b] = options as Json[];
  const [value, nul] = b.type === "null" ? [a, b] : [b, a];
  if (nul.type !== "null" || Object.keys(nul).length !== 1 || typeof value.type !== "string") {
    return undefined;
  }
  return { ...siblings, ...value, type: [value.type, "null"] };
}

function walk(value: unknown, output: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => walk(v, output));
  if (typeof value === "object" && value !== null) return compact(value as Json, output);
  return value;
}

function isPlainString(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).length === 1 &&
    (value as Json).type === "string";
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isEmpty(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).length === 0;
}
