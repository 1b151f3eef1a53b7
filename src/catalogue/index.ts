/**
 * Every tool in registration order (the anchor's order, so tools/list is deterministic and
 * familiar). New families are appended here and nowhere else.
 */
import type { ToolDefinition } from "./define.ts";
import { compatibility, diagnostics, healthTool } from "./tools/diagnostics.ts";
import { settingsGet } from "./tools/settings.ts";
import { portInspect, portsList } from "./tools/ports.ts";
import { claimGet, claimsList } from "./tools/claims.ts";
import {
  stackDefinitionValidate,
  stackDocumentGet,
  stackGet,
  stacksList,
  stackSnapshot,
  stackStatus,
} from "./tools/stacks.ts";
import { generationGet, generationsList } from "./tools/generations.ts";
import { activationGet, activationResolve, activationsList } from "./tools/activations.ts";
import { historyList } from "./tools/history.ts";
import { launcherOperationGet, launcherOperationsList } from "./tools/launcher.ts";

// deno-lint-ignore no-explicit-any -- definitions differ in their zod generics; the catalogue only needs the common surface.
type AnyTool = ToolDefinition<any, any>;

export const ALL_TOOLS: readonly AnyTool[] = [
  diagnostics,
  compatibility,
  healthTool,
  settingsGet,
  portsList,
  portInspect,
  claimsList,
  claimGet,
  stacksList,
  stackGet,
  generationsList,
  generationGet,
  activationsList,
  activationGet,
  historyList,
  stackStatus,
  activationResolve,
  stackDocumentGet,
  stackDefinitionValidate,
  stackSnapshot,
  launcherOperationGet,
  launcherOperationsList,
];
