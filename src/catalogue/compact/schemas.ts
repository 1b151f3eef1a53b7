/**
 * What the advertised schemas add for compact results: the `detail` input on the tools that
 * offer it, and the parts only the compact form has (the process table, a history event's
 * compact launcher operation, what an absent claim `mode` or entry `transport` means).
 * Fields the compact form may leave out are already optional (output schemas list no
 * `required`); README "Compact results" gives the rules once.
 */
import { DETAIL_TOOLS } from "./mod.ts";

type Json = Record<string, unknown>;

const PROCESS_TABLE_TOOLS = new Set([
  "portreeve_ports_list",
  "portreeve_port_inspect",
  "portreeve_port_reclaim_preview",
  "portreeve_claim_delete_preview",
  "portreeve_claim_reassign_preview",
]);

const PROCESSES = {
  type: "object",
  description: "pid → process fingerprint without pid; listeners and runs refer to it by pid",
  additionalProperties: {
    type: "object",
    properties: {
      parentPid: { type: "integer" },
      uid: { type: "integer" },
      startTime: { type: "string" },
      executable: { type: "string" },
      command: { type: "string" },
      workingDirectory: { type: "string" },
    },
  },
};

/** `detail: "full"` returns the daemon's records whole instead of the compact form. */
export function withDetailInput(tool: string, schema: Json): Json {
  if (!DETAIL_TOOLS.has(tool)) return schema;
  const properties = { ...(schema.properties as Json), detail: { type: "string", enum: ["full"] } };
  return { ...schema, properties };
}

/** Where a record's default-valued field sits in a tool's data schema, and its default. */
const DEFAULTS: Record<string, [path: string[], field: string, absent: string][]> = {
  portreeve_claims_list: [[["items", "items"], "mode", "sticky"]],
  portreeve_claim_get: [[[], "mode", "sticky"]],
  portreeve_ports_list: [[["items", "items"], "transport", "tcp"]],
  portreeve_port_inspect: [[[], "transport", "tcp"]],
};

/** A copy of `schema` whose field at `path` says what its absence means. */
function describeAbsent(schema: Json, path: string[], field: string, absent: string): Json {
  if (path.length > 0) {
    const [step, ...rest] = path;
    const inner = step === "items" && schema.type === "array" ? schema.items : undefined;
    if (inner !== undefined) {
      return { ...schema, items: describeAbsent(inner as Json, rest, field, absent) };
    }
    const properties = schema.properties as Json | undefined;
    if (!properties || !properties[step]) return schema;
    const child = describeAbsent(properties[step] as Json, rest, field, absent);
    return { ...schema, properties: { ...properties, [step]: child } };
  }
  const properties = schema.properties as Json | undefined;
  if (!properties || !properties[field]) return schema;
  const described = { ...(properties[field] as Json), description: `absent: ${absent}` };
  return { ...schema, properties: { ...properties, [field]: described } };
}

export function compactOutput(tool: string, schema: Json): Json {
  let data = schema;
  for (const [path, field, absent] of DEFAULTS[tool] ?? []) {
    data = describeAbsent(data, path, field, absent);
  }
  const properties = { ...(data.properties as Json) };
  if (PROCESS_TABLE_TOOLS.has(tool)) {
    // Previews keep their schemas short; the table has the same form everywhere.
    properties.processes = tool.endsWith("_preview")
      ? { type: "object", description: PROCESSES.description }
      : PROCESSES;
  }
  if (tool === "portreeve_history_list") {
    const items = properties.items as Json;
    const item = items.items as Json;
    properties.items = {
      ...items,
      items: {
        ...item,
        properties: {
          ...(item.properties as Json),
          operation: { type: "object", description: "launcher-operation payload, id = entityId" },
        },
      },
    };
  }
  return { ...data, properties };
}
