/**
 * The tool-definition model. Each tool is one declarative `ToolDefinition`; registration,
 * tools/list, the tool reference in docs/tools.md and the catalogue tests derive from these.
 */
import type { z } from "zod";
import type { ToolContext } from "./context.ts";
import type { Route } from "./routes.ts";
import type { Capability } from "../daemon/capabilities.ts";
import type { ToolKind } from "../shared/options.ts";
import type { AnyJsonInputs } from "../results/input_limits.ts";
import type { ResultView } from "../results/view.ts";

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
  /**
   * Whether the tool offers `detail: "full"` (the daemon's records whole instead of the compact
   * form): on tools whose records are large enough to need it.
   */
  detail?: true;
  /**
   * What the default result leaves out beyond what the compactor does (src/results/view.ts):
   * fields an agent rarely acts on (only with `detail`, which returns them) and values the
   * same result states elsewhere. A result that leaves one out names it in its `notShown`.
   */
  view?: ResultView;
  /**
   * Inputs that take any JSON value (JSON Schema cannot bound them), by field, with the
   * INPUT_BOUNDS entry the tool's own input check refuses them over.
   */
  anyJsonInputs?: AnyJsonInputs;
  /** Daemon capabilities the tool needs (checked against the cached health). */
  capabilities?: readonly Capability[];
  /**
   * Every daemon route `call` may request, each with the schema its reply is checked against
   * and its effect (the effects map and the `destructiveHint` come from these). Load-bearing:
   * the catalogue hands `call` a daemon client that refuses any other route.
   */
  routes: readonly Route[];
  /**
   * Performs the call; throws `BridgeError` for every failure. What it returns is checked
   * against `output` before anyone sees it.
   */
  call(ctx: ToolContext, input: z.output<In>): Promise<z.input<Out> | z.output<Out>>;
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
