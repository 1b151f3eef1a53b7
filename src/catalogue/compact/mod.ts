/**
 * Compact results: every tool's `data` is compacted along the output schema tools/list serves
 * for it, by the rules of ./rules.ts, so what a model reads and what it can look up say the
 * same. The catalogue applies this after the data was checked against its full shape and before
 * the result is built, so structuredContent and the text block carry the same compact data.
 * `detail: "full"` (on the tools below) returns the daemon's records whole instead.
 */
import listing from "../tools_list.json" with { type: "json" };
import { compact, type CompactContext } from "./compactor.ts";
import { type Defs, isObject, type Schema } from "./schema_nodes.ts";

export type { CompactContext };

/** Tools whose records are large enough to offer `detail: "full"`. */
export const DETAIL_TOOLS: ReadonlySet<string> = new Set([
  "portreeve_ports_list",
  "portreeve_port_inspect",
  "portreeve_stacks_list",
  "portreeve_stack_get",
  "portreeve_activations_list",
  "portreeve_activation_get",
  "portreeve_history_list",
  "portreeve_stack_status",
  "portreeve_launcher_operation_get",
  "portreeve_launcher_operations_list",
]);

interface DataSchema {
  data: Schema;
  defs: Defs;
}

/** The `data` node of each tool's advertised output schema, with the `$defs` it refers to. */
const SCHEMAS = new Map<string, DataSchema>();
for (const { tool } of listing.tools) {
  const output = tool.outputSchema as Schema | undefined;
  const properties = output?.properties;
  if (!isObject(properties) || !isObject(properties.data)) continue;
  SCHEMAS.set(tool.name, { data: properties.data, defs: (output?.$defs ?? {}) as Defs });
}

/** The compact form of a tool's data (as sent when the tool advertises no data schema). */
export function compactData(tool: string, data: unknown, context: CompactContext): unknown {
  const schema = SCHEMAS.get(tool);
  return schema === undefined ? data : compact(schema.data, schema.defs, data, context);
}

/**
 * How many JSON characters one page item adds to a compact page of `tool`: the item compacted
 * alone, with the process entries it brings. Alone it is never smaller than within its page.
 */
export function compactItemChars(
  tool: string,
  context: CompactContext,
): (item: unknown) => number {
  const shown = (items: unknown[]) =>
    JSON.stringify(compactData(tool, { items, page: {} }, context)).length;
  // Only paged tools measure items; the others never pay for the empty page.
  let empty: number | undefined;
  return (item) => shown([item]) - (empty ??= shown([]));
}
