/**
 * The tool-definition model. Each tool is one declarative `ToolDefinition`; registration,
 * tools/list, the README reference and the catalogue tests are all derived from these.
 */
import type { z } from "zod";
import type { ToolContext } from "./context.ts";
import type { Route } from "./routes.ts";
import type { Capability } from "../daemon/capabilities.ts";
import { canBeConsequential } from "../daemon/effects.ts";

/**
 * What a tool does to the world. It fixes the MCP annotations and the toolset:
 * read → `read`; mutation → `coordinate`; preview/execute → `full`.
 */
export type ToolKind = "read" | "mutation" | "preview" | "execute";

import { type Toolset, TOOLSETS } from "../shared/options.ts";
export { type Toolset, TOOLSETS };

export interface ToolDefinition<
  In extends z.ZodObject = z.ZodObject,
  Out extends z.ZodType = z.ZodType,
> {
  /** Exactly the anchor's name, so agents can switch bridges without relearning. */
  name: string;
  title: string;
  kind: ToolKind;
  /** One or two sentences: when to use it and what it will not do. */
  description: string;
  /** Input object: the anchor's field names, enums, limits and defaults. */
  input: In;
  /** Shape of `data` on success; object-rooted and loose where detail is rare. */
  output: Out;
  /** Daemon capabilities the tool needs (checked against the cached health). */
  capabilities?: readonly Capability[];
  /** The daemon routes `call` uses, each with the schema its reply is checked against. */
  routes?: readonly Route[];
  /**
   * Performs the call; throws `BridgeError` for every failure. What it returns is checked
   * against `output` before anyone sees it.
   */
  call(ctx: ToolContext, input: z.output<In>): Promise<z.input<Out> | z.output<Out>>;
  /** One short line a person can read, not the JSON again. */
  summary(data: z.output<Out>, input: z.output<In>): string;
}

// deno-lint-ignore no-explicit-any -- definitions differ in their zod generics; the catalogue only needs the common surface.
export type AnyTool = ToolDefinition<any, any>;

/** Every definition made by `defineTool`, so the catalogue can tell them from other exports. */
const DEFINED = new WeakSet<object>();

/** Fixes the generic types at the definition site and marks the value as a tool definition. */
export function defineTool<In extends z.ZodObject, Out extends z.ZodType>(
  definition: ToolDefinition<In, Out>,
): ToolDefinition<In, Out> {
  DEFINED.add(definition);
  return definition;
}

/** Whether `value` (any export of a family module) is a tool definition. */
export function isToolDefinition(value: unknown): value is AnyTool {
  return typeof value === "object" && value !== null && DEFINED.has(value);
}

export interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * What hosts are told about a tool. `readOnlyHint` follows its kind (a read changes nothing;
 * a preview records a receipt). `destructiveHint` follows the effects its routes declare:
 * true when some input can reach a consequential effect (signal, delete, write, move,
 * settings), so a tool like lease_acquire, whose reclaim policies can signal processes, is
 * never advertised as harmless. Executes replay a completed receipt instead of applying
 * twice, and the other kinds return the achieved state when repeated: all idempotent.
 */
export function annotationsFor(tool: Pick<ToolDefinition, "kind" | "routes">): Annotations {
  return {
    readOnlyHint: tool.kind === "read",
    destructiveHint: (tool.routes ?? []).some((route) => canBeConsequential(route.effect)),
    idempotentHint: true,
    openWorldHint: false,
  };
}

const TOOLSET_OF: Record<ToolKind, Toolset> = {
  read: "read",
  mutation: "coordinate",
  preview: "full",
  execute: "full",
};

/** The smallest toolset that registers a tool of this kind. */
export function toolsetOf(kind: ToolKind): Toolset {
  return TOOLSET_OF[kind];
}

/** Whether a tool of this kind is registered under `toolset`. */
export function inToolset(kind: ToolKind, toolset: Toolset): boolean {
  return TOOLSETS.indexOf(TOOLSET_OF[kind]) <= TOOLSETS.indexOf(toolset);
}
