/**
 * The registered catalogue: the definitions of one toolset, their tools/list entries (built
 * once, on first request), and the call path with input checks and the response builder.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import type { z } from "zod";
import { annotationsFor, inToolset, type ToolDefinition, type Toolset } from "./define.ts";
import { inputJsonSchema, outputJsonSchema } from "./json_schema.ts";
import { asBridgeError, failure, success } from "./result.ts";
import { invalidInput, invalidResponse } from "../daemon/errors.ts";
import type { ToolContext } from "./context.ts";

export class Catalogue {
  readonly tools: readonly ToolDefinition[];
  #byName: Map<string, ToolDefinition>;
  #listing?: Tool[];

  constructor(all: readonly ToolDefinition[], readonly toolset: Toolset = "full") {
    this.tools = all.filter((tool) => inToolset(tool.kind, toolset));
    this.#byName = new Map(this.tools.map((tool) => [tool.name, tool]));
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  /** Capabilities the registered tools need, for the compatibility report. */
  requiredCapabilities(): string[] {
    return [...new Set(this.tools.flatMap((tool) => tool.capabilities ?? []))].sort();
  }

  /** tools/list entries in registration order; computed once per process. */
  listing(): Tool[] {
    this.#listing ??= this.tools.map(describeTool);
    return this.#listing;
  }

  async call(
    name: string,
    args: unknown,
    ctx: Omit<ToolContext, "capabilities">,
  ): Promise<CallToolResult> {
    const tool = this.#byName.get(name);
    if (!tool) throw new Error(`unknown tool ${name}`);
    try {
      const input = tool.input.safeParse(args ?? {});
      if (!input.success) {
        throw invalidInput(describeIssues(name, input.error), { issues: issues(input.error) });
      }
      const raw = await tool.call({ ...ctx, capabilities: tool.capabilities ?? [] }, input.data);
      // The output schema documents and checks the fields agents act on; the daemon's record
      // is returned whole (not stripped to those fields), so nothing it says is lost.
      const checked = tool.output.safeParse(raw);
      if (!checked.success) {
        throw invalidResponse(`${name} data did not have the documented shape`, {
          issues: issues(checked.error),
        });
      }
      return success(raw, tool.summary(checked.data, input.data));
    } catch (error) {
      return failure(asBridgeError(error));
    }
  }
}

export function describeTool(tool: ToolDefinition): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputJsonSchema(tool.input) as Tool["inputSchema"],
    // `{ok:true,data}` or `{ok:false,error:{code,message,retryable,details}}`; the error
    // branch is the same for every tool, so it is described once in the instructions.
    outputSchema: {
      type: "object",
      properties: { ok: { type: "boolean" }, data: outputJsonSchema(tool.output) },
    },
    annotations: annotationsFor(tool.kind),
  };
}

function issues(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.slice(0, 20).map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issue.message,
  }));
}

function describeIssues(name: string, error: z.ZodError): string {
  const list = issues(error).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
  return `Invalid arguments for ${name}: ${list.join("; ")}.`;
}
