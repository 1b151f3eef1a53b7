/**
 * What the advertised schemas say about compact results: the `detail` input on the tools that
 * offer it; in output schemas, at each field a rule names, what its absence means, and the
 * result's process table where fingerprints can occur. The notes come from ./rules.ts, the
 * same declaration the compactor and the instructions use.
 */
import { fieldNote, PROCESS_TABLE, ruleFor } from "./rules.ts";
import { type Defs, isFingerprint, resolve, type Schema } from "./schema_nodes.ts";
import { isObject } from "../../shared/json.ts";

/**
 * `detail: "full"` returns the daemon's records whole instead of the compact form; `offered`
 * is the tool's own `detail` flag.
 */
export function withDetailInput(offered: boolean, schema: Schema): Schema {
  if (!offered) return schema;
  const properties = {
    ...(schema.properties as Schema),
    detail: { type: "string", enum: ["full"] },
  };
  return { ...schema, properties };
}

/** Said once per output: what absence means for a field no rule names. */
const DATA_NOTE = "compact: absent = null, [] or {} unless noted";

/** The data schema and its `$defs`, each field a rule names noted, the process table added. */
export function notedOutput(data: Schema, defs: Defs): { data: Schema; defs: Defs } {
  const notedDefs = Object.fromEntries(
    Object.entries(defs).map(([name, def]) => [name, note(def)]),
  );
  const noted = note(data);
  const properties = { ...(noted.properties as Schema) };
  if (holdsFingerprint(data, defs, new Set())) {
    properties[PROCESS_TABLE.key] = {
      type: "object",
      description: "pid → its process fingerprint; elsewhere a fingerprint is {pid}",
      additionalProperties: { type: "object" },
    };
  }
  return { data: { ...noted, description: DATA_NOTE, properties }, defs: notedDefs };
}

/** Notes every rule-named field of every record below `node`. */
function note(node: unknown): Schema {
  if (Array.isArray(node)) return node.map(note) as unknown as Schema;
  if (!isObject(node)) return node as Schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" && isObject(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([field, schema]) => {
          const rule = ruleFor(field);
          const noted = note(schema);
          return [field, rule ? { ...noted, description: fieldNote(rule) } : noted];
        }),
      );
    } else if (typeof value === "object" && value !== null) {
      out[key] = note(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function holdsFingerprint(node: unknown, defs: Defs, seen: Set<unknown>): boolean {
  if (!isObject(node) && !Array.isArray(node)) return false;
  if (seen.has(node)) return false;
  seen.add(node);
  if (isObject(node)) {
    if (isFingerprint(resolve(node, defs))) return true;
    if (typeof node.$ref === "string") return holdsFingerprint(resolve(node, defs), defs, seen);
  }
  return Object.values(node).some((child) => holdsFingerprint(child, defs, seen));
}
