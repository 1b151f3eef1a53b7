/**
 * Every tool, collected from the family modules' exports (whatever `defineTool` made) and put
 * in the order of TOOL_ORDER: the reference bridge's order, so tools/list is deterministic and
 * familiar. A new tool is one definition in its family file plus its name below; a test names
 * any tool missing from either side.
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
];

/** Registration order, without the `portreeve_` prefix. */
export const TOOL_ORDER: readonly string[] = [
  "diagnostics",
  "compatibility",
  "health",
  "settings_get",
  "ports_list",
  "port_inspect",
  "claims_list",
  "claim_get",
  "stacks_list",
  "stack_get",
  "generations_list",
  "generation_get",
  "activations_list",
  "activation_get",
  "history_list",
  "lease_acquire",
  "lease_confirm",
  "lease_abandon",
  "run_release",
  "stack_status",
  "stack_prepare",
  "activation_begin",
  "activation_custody_extend",
  "activation_resolve",
  "activation_confirm_endpoint",
  "activation_skip_endpoint",
  "activation_abandon_endpoint",
  "activation_reconcile",
  "activation_end",
  "port_reclaim_preview",
  "port_reclaim_execute",
  "claim_reassign_preview",
  "claim_reassign_execute",
  "claim_delete_preview",
  "claim_delete_execute",
  "claims_prune_preview",
  "claims_prune_execute",
  "stack_document_get",
  "stack_definition_validate",
  "stack_apply_preview",
  "stack_apply_execute",
  "stacks_prune_preview",
  "stacks_prune_execute",
  "settings_update_preview",
  "settings_update_execute",
  "stack_snapshot",
  "launcher_operation_begin",
  "launcher_operation_renew",
  "launcher_operation_complete",
  "launcher_operation_get",
  "launcher_operations_list",
];

export interface Collected {
  tools: AnyTool[];
  /** Names in the order with no definition. */
  missing: string[];
  /** Definitions whose name the order lacks (appended after the ordered ones). */
  extra: string[];
}

/** The definitions exported by `families`, in `order` (names without `portreeve_`). */
export function collectTools(
  families: readonly Record<string, unknown>[],
  order: readonly string[],
): Collected {
  const found = new Map<string, AnyTool>();
  for (const family of families) {
    for (const value of Object.values(family)) {
      if (isToolDefinition(value)) found.set(value.name, value);
    }
  }
  const names = order.map((stem) => `portreeve_${stem}`);
  const missing = names.filter((name) => !found.has(name));
  const extra = [...found.keys()].filter((name) => !names.includes(name)).sort();
  const tools = [...names, ...extra].flatMap((name) => found.get(name) ?? []);
  return { tools, missing, extra };
}

export const ALL_TOOLS: readonly AnyTool[] = collectTools(FAMILIES, TOOL_ORDER).tools;
