/**
 * Every tool in registration order (the anchor's order, so tools/list is deterministic and
 * familiar). New families are appended here and nowhere else.
 */
import type { ToolDefinition } from "./define.ts";
import { compatibility, diagnostics, healthTool } from "./tools/diagnostics.ts";
import { settingsGet } from "./tools/settings.ts";

// deno-lint-ignore no-explicit-any -- definitions differ in their zod generics; the catalogue only needs the common surface.
type AnyTool = ToolDefinition<any, any>;

export const ALL_TOOLS: readonly AnyTool[] = [
  diagnostics,
  compatibility,
  healthTool,
  settingsGet,
];
