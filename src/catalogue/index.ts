/**
 * Every tool: the definitions the family modules export (whatever `defineTool` made), in the
 * order of TOOL_ORDER. A new tool is one definition in its family file plus its place in the
 * order (and its family here, for a new file); a test names any tool missing from either side.
 */
import { type AnyTool, isToolDefinition } from "./define.ts";
import * as diagnostics from "./tools/diagnostics.ts";
import * as settings from "./tools/settings.ts";
import * as ports from "./tools/ports.ts";
import * as claims from "./tools/claims.ts";
import * as stacks from "./tools/stacks.ts";
import * as generations from "./tools/generations.ts";
import * as activations from "./tools/activations.ts";
import * as history from "./tools/history.ts";
import * as launcher from "./tools/launcher.ts";
import * as leases from "./tools/leases.ts";
import * as activationLifecycle from "./tools/activation_lifecycle.ts";
import * as launcherLifecycle from "./tools/launcher_lifecycle.ts";
import * as claimReceipts from "./tools/consequential/claims.ts";
import * as stackReceipts from "./tools/consequential/stacks.ts";
import * as settingsReceipts from "./tools/consequential/settings.ts";

export const FAMILIES: readonly Record<string, unknown>[] = [
  diagnostics,
  settings,
  ports,
  claims,
  stacks,
  generations,
  activations,
  history,
  launcher,
  leases,
  activationLifecycle,
  launcherLifecycle,
  claimReceipts,
  stackReceipts,
  settingsReceipts,
];

/**
 * Registration order: the reference bridge's, so tools/list is deterministic and familiar. A
 * new tool takes its place here; a test names any definition a family exports that is not.
 */
export const TOOL_ORDER: readonly AnyTool[] = [
  diagnostics.diagnostics,
  diagnostics.compatibility,
  diagnostics.healthTool,
  settings.settingsGet,
  ports.portsList,
  ports.portInspect,
  claims.claimsList,
  claims.claimGet,
  stacks.stacksList,
  stacks.stackGet,
  generations.generationsList,
  generations.generationGet,
  activations.activationsList,
  activations.activationGet,
  history.historyList,
  leases.leaseAcquire,
  leases.leaseConfirm,
  leases.leaseAbandon,
  leases.runRelease,
  stacks.stackStatus,
  activationLifecycle.stackPrepare,
  activationLifecycle.activationBegin,
  activationLifecycle.activationCustodyExtend,
  activations.activationResolve,
  activationLifecycle.activationConfirmEndpoint,
  activationLifecycle.activationSkipEndpoint,
  activationLifecycle.activationAbandonEndpoint,
  activationLifecycle.activationReconcile,
  activationLifecycle.activationEnd,
  claimReceipts.portReclaimPreview,
  claimReceipts.portReclaimExecute,
  claimReceipts.claimReassignPreview,
  claimReceipts.claimReassignExecute,
  claimReceipts.claimDeletePreview,
  claimReceipts.claimDeleteExecute,
  claimReceipts.claimsPrunePreview,
  claimReceipts.claimsPruneExecute,
  stacks.stackDocumentGet,
  stacks.stackDefinitionValidate,
  stackReceipts.stackApplyPreview,
  stackReceipts.stackApplyExecute,
  stackReceipts.stacksPrunePreview,
  stackReceipts.stacksPruneExecute,
  settingsReceipts.settingsUpdatePreview,
  settingsReceipts.settingsUpdateExecute,
  stacks.stackSnapshot,
  launcherLifecycle.launcherOperationBegin,
  launcherLifecycle.launcherOperationRenew,
  launcherLifecycle.launcherOperationComplete,
  launcher.launcherOperationGet,
  launcher.launcherOperationsList,
];

export interface Collected {
  tools: AnyTool[];
  /** Tools in the order that no family exports (a family missing from FAMILIES). */
  missing: string[];
  /** Definitions the families export that the order lacks (appended after the ordered ones). */
  extra: string[];
}

/** The definitions exported by `families`, in `order`, then any the order lacks. */
export function collectTools(
  families: readonly Record<string, unknown>[],
  order: readonly AnyTool[],
): Collected {
  const found = new Set<AnyTool>();
  for (const family of families) {
    for (const value of Object.values(family)) {
      if (isToolDefinition(value)) found.add(value);
    }
  }
  const missing = order.filter((tool) => !found.has(tool)).map((tool) => tool.name);
  const extra = [...found].filter((tool) => !order.includes(tool));
  const tools = [...order.filter((tool) => found.has(tool)), ...extra];
  return { tools, missing, extra: extra.map((tool) => tool.name).sort() };
}

export const ALL_TOOLS: readonly AnyTool[] = collectTools(FAMILIES, TOOL_ORDER).tools;
