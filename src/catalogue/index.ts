/**
 * Every tool, in one list: TOOL_ORDER, the definitions the family files under `tools/` export,
 * in registration order. Everything else derives from it: ALL_TOOLS, the served tools/list
 * (`deno task gen` writes tools_list.json from it), the docs and the walks of the tests.
 * A new tool is one definition in its family file plus its place here;
 * tests/unit/catalogue/recipe_test.ts imports every family file and names any definition it
 * exports that the list lacks.
 */
import type { AnyTool } from "./define.ts";
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

/** Registration order: the reference bridge's, so tools/list is deterministic and familiar. */
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

/** Every tool, in registration order (the one list above). */
export const ALL_TOOLS: readonly AnyTool[] = TOOL_ORDER;
