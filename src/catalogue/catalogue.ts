/**
 * The registered catalogue of one toolset. tools/list is served from `tools_list.json`, which
 * `deno task gen` derives from the definitions (a test keeps it in step), so start-up neither
 * builds zod schemas nor converts them to JSON Schema; the definitions themselves load on the
 * first tools/call.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import type { z } from "zod";
import { inToolset, type ToolDefinition, type ToolKind, type Toolset } from "./define.ts";
import { asBridgeError, failure, success } from "./result.ts";
import { Codes, invalidInput, invalidResponse } from "../daemon/errors.ts";
import type { ToolContext } from "./context.ts";
import generated from "./tools_list.json" with { type: "json" };

/** One tools/list entry with what the bridge needs to know about it without loading it. */
export interface ListedTool {
  kind: ToolKind;
  capabilities: string[];
  tool: Tool;
}

export type DefinitionLoader = () => Promise<readonly ToolDefinition[]>;

const loadDefinitions: DefinitionLoader = async () => (await import("./index.ts")).ALL_TOOLS;

/** Told about every error that is the bridge's own bug (answered `portreeve_internal`). */
export type BugReporter = (tool: string, error: unknown) => void;

export class Catalogue {
  readonly entries: readonly ListedTool[];
  /** Set by whoever serves the catalogue, so a bug's stack reaches the log. */
  onBug?: BugReporter;
  #names: Set<string>;
  #listing: Tool[];
  #definitions?: Promise<Map<string, ToolDefinition>>;

  constructor(
    readonly toolset: Toolset = "full",
    listed: readonly ListedTool[] = generated.tools as unknown as ListedTool[],
    private readonly load: DefinitionLoader = loadDefinitions,
  ) {
    this.entries = listed.filter((entry) => inToolset(entry.kind, toolset));
    this.#names = new Set(this.entries.map((entry) => entry.tool.name));
    this.#listing = this.entries.map((entry) => entry.tool);
  }

  get size(): number {
    return this.entries.length;
  }

  has(name: string): boolean {
    return this.#names.has(name);
  }

  /** Capabilities the registered tools need, for the compatibility report. */
  requiredCapabilities(): string[] {
    return [...new Set(this.entries.flatMap((entry) => entry.capabilities))].sort();
  }

  /** tools/list entries in registration order. */
  listing(): Tool[] {
    return this.#listing;
  }

  async call(
    name: string,
    args: unknown,
    ctx: Omit<ToolContext, "capabilities">,
  ): Promise<CallToolResult> {
    if (!this.has(name)) throw new Error(`unknown tool ${name}`);
    this.#definitions ??= this.load().then((all) => new Map(all.map((tool) => [tool.name, tool])));
    const tool = (await this.#definitions).get(name);
    if (!tool) {
      throw new Error(`tool ${name} is listed but has no definition; run \`deno task gen\``);
    }
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
      const reported = asBridgeError(error);
      if (reported.code === Codes.internal) this.onBug?.(name, error);
      return failure(reported);
    }
  }
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
