/**
 * What hosts are told about each tool: its tools/list entry (name, title, description, the
 * advertised input and output schemas, the annotations), derived from the definitions by
 * `deno task gen` into tools_list.json. Anything shaped like a definition can be described.
 */
import type { Tool } from "@modelcontextprotocol/server";
import type { z } from "zod";
import { inputJsonSchema, outputJsonSchema } from "./json_schema.ts";
import { hoistRecords } from "./output_defs.ts";
import { isFingerprint, type Schema } from "./compact/schema_nodes.ts";
import type { Json } from "../shared/json.ts";
import type { Annotations, ListedTool } from "./listing.ts";
import type { ToolKind } from "../shared/options.ts";
import type { Route } from "../daemon/routes.ts";
import { canBeConsequential } from "../daemon/effects.ts";

/** What describing a tool reads of its definition. */
interface Describable {
  name: string;
  title: string;
  description: string;
  kind: ToolKind;
  input: z.ZodObject;
  output: z.ZodType;
  detail?: true;
  capabilities?: readonly string[];
  routes?: readonly Route[];
}

/**
 * What hosts are told about a tool. `readOnlyHint` follows its kind (a read changes nothing;
 * a preview records a receipt). `destructiveHint` follows the effects its routes declare:
 * true when some input can reach a consequential effect (signal, delete, write, move,
 * settings), so a tool like lease_acquire, whose reclaim policies can signal processes, is
 * never advertised as harmless. Executes replay a completed receipt instead of applying
 * twice, and the other kinds return the achieved state when repeated: all idempotent.
 */
function annotationsFor(tool: Pick<Describable, "kind" | "routes">): Annotations {
  // MCP: destructiveHint and idempotentHint mean something only when readOnlyHint is false.
  if (tool.kind === "read") return { readOnlyHint: true, openWorldHint: false };
  return {
    readOnlyHint: false,
    destructiveHint: (tool.routes ?? []).some((route) => canBeConsequential(route.effect)),
    idempotentHint: true,
    openWorldHint: false,
  };
}

/**
 * `detail: "full"` returns the daemon's records whole instead of the compact form; `offered`
 * is the tool's own `detail` flag.
 */
function withDetailInput(offered: boolean, schema: Json): Json {
  if (!offered) return schema;
  const properties = { ...(schema.properties as Json), detail: { type: "string", enum: ["full"] } };
  return { ...schema, properties };
}

export function describeTool(tool: Describable): Tool {
  const { $defs: _none, ...whole } = outputJsonSchema(tool.output);
  const { data, defs } = hoistRecords(whole, (node) => isFingerprint(node as Schema));
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: withDetailInput(
      tool.detail === true,
      inputJsonSchema(tool.input),
    ) as Tool["inputSchema"],
    // A success's structuredContent, `{ok:true,data}`; an error carries none (its text block
    // says it all). `data` is the compact form; no field is required, so it also admits
    // `detail: "full"` records. Its `notShown` is words for the reader, not data, and goes
    // undeclared (the schema is open): declared on every tool that may carry it, it would cost
    // Codex's code mode about 0.9 KB of every prompt.
    outputSchema: {
      type: "object",
      properties: { ok: { type: "boolean" }, data },
      ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
    },
    annotations: annotationsFor(tool),
  };
}

export function listTools(
  definitions: readonly Describable[],
): { version: 1; tools: ListedTool[] } {
  return {
    version: 1,
    tools: definitions.map((tool) => ({
      kind: tool.kind,
      capabilities: [...(tool.capabilities ?? [])],
      tool: describeTool(tool),
    })),
  };
}
