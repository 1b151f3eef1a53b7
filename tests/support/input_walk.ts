/**
 * Walks a tool's advertised input schema (JSON Schema as tools/list serves it): a valid
 * argument object, every bounded node with its path, and for each string (value or map key)
 * the arguments that make just that string one character too long, or far too long.
 */
import { resolve, stringBound } from "../../src/results/input_limits.ts";
import type { Schema } from "../../src/results/compact/schema_nodes.ts";

/**
 * A value `raw` accepts (required properties only, empty lists and maps): the baseline each
 * invalid or over-long case changes in one place.
 */
export function validValue(raw: Schema, root: Schema): unknown {
  const s = resolve(raw, root);
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (Array.isArray(s.anyOf)) return validValue((s.anyOf as Schema[])[0], root);
  switch ([s.type].flat()[0]) {
    case "string":
      return validString(s);
    case "integer":
    case "number":
      if (typeof s.minimum === "number") return s.minimum;
      return typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum + 1 : 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object": {
      const out: Record<string, unknown> = {};
      const props = (s.properties ?? {}) as Record<string, Schema>;
      for (const key of (s.required ?? []) as string[]) out[key] = validValue(props[key], root);
      return out;
    }
    default:
      return {};
  }
}

function validString(s: Schema): string {
  if (s.format === "uuid") return "00000000-0000-4000-8000-000000000000";
  if (s.format === "date-time") return "1970-01-01T00:00:00.000Z";
  const fixed: Record<string, string> = {
    "^[A-Za-z0-9_-]{43}$": "A".repeat(43),
    "^[a-f0-9]{64}$": "a".repeat(64),
    "^[a-f0-9]{12,64}$": "a".repeat(12),
    "^SIG[A-Z0-9]+$": "SIGTERM",
    "^[a-z0-9_-]+$": "code",
  };
  if (typeof s.pattern === "string") return fixed[s.pattern] ?? "x";
  return "/abs/x";
}

/**
 * Whether an invalid-arguments message (`path: message; path: message.`) names `path` (with
 * `key`, a key under it: its issue sits at the key, below the map's path).
 */
export function namesPath(message: string, path: string, key = false): boolean {
  const issues = message.split("; ");
  return key
    ? issues.some((issue) => issue.startsWith(path ? `${path}.` : ""))
    : issues.some((issue) => issue.startsWith(`${path}: `));
}

/** One string input: where it is, and the arguments that make it `extra` characters too long. */
export interface StringInput {
  /** Dotted path as the bridge names it in its message (a map key: the map's path). */
  path: string;
  /** True for a map key (its issue is reported at the key, under the map's path). */
  key: boolean;
  /** The bound a value must exceed: maxLength, or the length its format or pattern fixes. */
  max: number;
  argsWith(extra: number): Record<string, unknown>;
}

/** Every string input of a tool, nested ones (list items, map keys and values) included. */
export function stringInputs(root: Schema): StringInput[] {
  const out: StringInput[] = [];
  // `place(value)` returns the whole argument object with `value` at the current position.
  const visit = (
    raw: Schema,
    path: string[],
    place: (value: unknown) => Record<string, unknown>,
  ): void => {
    const s = resolve(raw, root);
    if (Array.isArray(s.anyOf)) return (s.anyOf as Schema[]).forEach((o) => visit(o, path, place));
    const types = [s.type].flat();
    if (types.includes("string") && !("const" in s) && !Array.isArray(s.enum)) {
      const max = stringBound(s);
      const valid = validString(s);
      out.push({
        path: path.join("."),
        key: false,
        max,
        argsWith: (extra) => place(valid + "x".repeat(Math.max(1, max - valid.length + extra))),
      });
    }
    if (types.includes("object")) {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const self = validValue(s, root) as Record<string, unknown>;
      for (const [name, child] of Object.entries(props)) {
        visit(child, [...path, name], (value) => place({ ...self, [name]: value }));
      }
      const values = s.additionalProperties;
      if (typeof values === "object" && values !== null) {
        const names = (s.propertyNames ?? {}) as Schema;
        const keyMax = typeof names.maxLength === "number" ? names.maxLength : Infinity;
        out.push({
          path: path.join("."),
          key: true,
          max: keyMax,
          argsWith: (extra) =>
            place({ ["k".repeat(keyMax + extra)]: validValue(values as Schema, root) }),
        });
        visit(values as Schema, [...path, "k"], (value) => place({ k: value }));
      }
    }
    if (types.includes("array") && typeof s.items === "object" && s.items !== null) {
      visit(s.items as Schema, [...path, "0"], (value) => place([value]));
    }
  };
  visit(root, [], (value) => value as Record<string, unknown>);
  return out;
}
