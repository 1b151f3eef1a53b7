/** Consequential changes behind evidence-bound preview and execute (issue 5). */
// deno-lint-ignore no-explicit-any -- definitions differ in their zod generics.
import type { ToolDefinition } from "../define.ts";

// deno-lint-ignore no-explicit-any -- see above
export const CONSEQUENTIAL_TOOLS: readonly ToolDefinition<any, any>[] = [];
