/**
 * zod → compact JSON Schema for tools/list. Hosts pay for every byte in the model's context,
 * so we drop what a format already says (zod's 140-character UUID regex, the date-time
 * regex), the safe-integer bounds, and closed-object markers on outputs (the daemon may add
 * fields; we document what agents act on, not a contract to reject the rest).
 */
import { z } from "zod";

type Json = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;

export function inputJsonSchema(schema: z.ZodType): Json {
  return compact(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json, false);
}

export function outputJsonSchema(schema: z.ZodType): Json {
  return compact(z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as Json, true);
}

function compact(node: Json, output: boolean): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema") continue;
    if (key === "pattern" && typeof node.format === "string") continue;
    if (key === "maximum" && value === SAFE) continue;
    if (key === "minimum" && value === -SAFE) continue;
    if (key === "propertyNames" && isPlainString(value)) continue;
    if (key === "additionalProperties" && isEmpty(value)) continue;
    if (key === "additionalProperties" && value === false && output) continue;
    out[key] = walk(value, output);
  }
  return out;
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

function isEmpty(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).length === 0;
}
