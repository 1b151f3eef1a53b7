/** Derives tools/list entries from the definitions (used by `deno task gen` and its test). */
import type { Tool } from "@modelcontextprotocol/server";
import { annotationsFor, type ToolDefinition } from "./define.ts";
import { inputJsonSchema, outputJsonSchema } from "./json_schema.ts";
import type { ListedTool } from "./catalogue.ts";
import { notedOutput, withDetailInput } from "./compact/notes.ts";
import type { Defs } from "./compact/schema_nodes.ts";

export function describeTool(tool: ToolDefinition): Tool {
  const { $defs, ...data } = outputJsonSchema(tool.output);
  const noted = notedOutput(data, ($defs ?? {}) as Defs);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: withDetailInput(tool.name, inputJsonSchema(tool.input)) as Tool["inputSchema"],
    // `{ok:true,data}` or `{ok:false,error:{code,message,retryable,nextStep,details}}`; the
    // error branch is the same for every tool, so it is described once in the instructions
    // (51 copies would cost ~9 KB that no host shows its model). `data` is the compact form
    // (it also admits `detail: "full"` records: no field is required).
    outputSchema: {
      type: "object",
      properties: { ok: { type: "boolean" }, data: noted.data },
      ...(Object.keys(noted.defs).length > 0 ? { $defs: noted.defs } : {}),
    },
    annotations: annotationsFor(tool),
  };
}

export function listTools(
  definitions: readonly ToolDefinition[],
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

/** The listing as `deno task gen` writes it: two-space JSON, as `deno fmt` leaves it. */
export function listingText(listing: { version: 1; tools: ListedTool[] }): string {
  return JSON.stringify(listing, null, 2) + "\n";
}
