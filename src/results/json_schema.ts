/**
 * zod → compact JSON Schema for tools/list. Hosts pay for every byte in the model's context,
 * so the advertised schemas say what an agent needs and no more; zod still validates every
 * argument strictly at run time.
 *
 * Inputs drop what a format already says (zod's 140-character UUID regex, the date-time
 * regex), safe-integer bounds and `additionalProperties: false` (every input object is
 * strict; the server instructions say so once, and an unknown key is a clear invalid-input
 * error). Outputs also drop `required` (a compact result may leave any field out), formats,
 * patterns and numeric bounds, fold `anyOf [X, null]` into a type list, and stay open: the
 * daemon may add fields.
 */
import { z } from "zod";
import { isObject, type Json } from "../shared/json.ts";

const SAFE = Number.MAX_SAFE_INTEGER;

export function inputJsonSchema(schema: z.ZodType): Json {
  // A sub-schema used twice in one tool (e.g. before/after evidence) is written once under
  // $defs and referenced, rather than spelled out twice.
  const full = z.toJSONSchema(schema, { io: "input", unrepresentable: "any", reused: "ref" });
  return compact(inlineSmallDefs(compact(full as Json, false)), false);
}

/** `{"$ref":"#/$defs/"}` around a name: what each use of a definition costs. */
const REF_COST = 18;

/**
 * A definition is written where it is used unless sharing it is shorter (a record used twice
 * is; a bare `{"type":"string"}` or anything used once is not).
 */
function inlineSmallDefs(schema: Json): Json {
  const defs = isObject(schema.$defs) ? schema.$defs : {};
  const text = JSON.stringify(schema);
  const uses = (name: string) => text.split(`"#/$defs/${name}"`).length - 1;
  const shared = (name: string, def: unknown) => {
    const size = JSON.stringify(def).length;
    const n = uses(name);
    return n * size > n * (REF_COST + name.length) + size + name.length + 3;
  };
  const small = new Map(Object.entries(defs).filter(([name, def]) => !shared(name, def)));
  if (small.size === 0) return schema;
  // A definition that refers to itself, directly or through others, stays shared.
  const recursive = new Set<string>();
  const inline = (node: unknown, within: readonly string[] = []): unknown => {
    if (Array.isArray(node)) return node.map((item) => inline(item, within));
    if (!isObject(node)) return node;
    const ref = typeof node.$ref === "string" ? node.$ref.replace("#/$defs/", "") : undefined;
    if (ref !== undefined && small.has(ref)) {
      if (within.includes(ref)) {
        recursive.add(ref);
        return node;
      }
      const { $ref: _ref, ...siblings } = node;
      return inline({ ...(small.get(ref) as Json), ...siblings }, [...within, ref]);
    }
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [key, inline(value, within)]),
    );
  };
  const { $defs: _defs, ...rest } = schema;
  const out = inline(rest) as Json;
  const kept = Object.entries(defs).filter(([name]) => !small.has(name) || recursive.has(name));
  if (kept.length === 0) return out;
  return {
    ...out,
    $defs: Object.fromEntries(kept.map(([name, def]) => [name, inline(def, [name])])),
  };
}

/**
 * The whole shape of a tool's data, every record declared to its last field and written where
 * it occurs (./output_defs.ts decides which records move under `$defs`).
 */
export function outputJsonSchema(schema: z.ZodType): Json {
  const full = z.toJSONSchema(schema, { io: "output", unrepresentable: "any", reused: "inline" });
  return compact(full as Json, true);
}

function compact(node: Json, output: boolean): Json {
  const nullable = foldNullable(node);
  if (nullable) return compact(nullable, output);
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    // Names of fields and definitions are data, not keywords: each names a schema.
    if ((key === "properties" || key === "$defs") && isObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, schema]) => [name, walk(schema, output)]),
      );
      continue;
    }
    if (key === "$schema") continue;
    if (key === "pattern" && (output || typeof node.format === "string")) continue;
    // A data field's name says what it holds (`…At`, `…Id`); its format adds nothing there.
    if (key === "format" && output) continue;
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
    // Inputs are strict (an unknown key is refused, naming it), and the instructions say so
    // once: the `false` on every input object costs Codex's model about 1.9 KB of context, more
    // than its whole margin under the reference. A map keeps its value type.
    if (key === "additionalProperties" && (isEmpty(value) || value === false)) continue;
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
  if (isObject(value)) return compact(value, output);
  return value;
}

function isPlainString(value: unknown): boolean {
  return isObject(value) && Object.keys(value).length === 1 && value.type === "string";
}

function isEmpty(value: unknown): boolean {
  return isObject(value) && Object.keys(value).length === 0;
}
