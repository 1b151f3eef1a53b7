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
import { leaseAbandon, leaseAcquire, leaseConfirm, runRelease } from "./tools/leases.ts";
import {
  activationAbandonEndpoint,
  activationBegin,
  activationConfirmEndpoint,
  activationCustodyExtend,
  activationEnd,
  activationReconcile,
  activationSkipEndpoint,
  stackPrepare,
} from "./tools/activation_lifecycle.ts";
import {
  launcherOperationBegin,
  launcherOperationComplete,
  launcherOperationRenew,
} from "./tools/launcher_lifecycle.ts";
import { CONSEQUENTIAL_TOOLS } from "./tools/consequential.ts";

// deno-lint-ignore no-explicit-any -- definitions differ in their zod generics; the catalogue only needs the common surface.
type AnyTool = ToolDefinition<any, any>;

const byName = (tools: readonly AnyTool[], name: string) => tools.find((t) => t.name === name)!;
const c = (name: string) => byName(CONSEQUENTIAL_TOOLS, `portreeve_${name}`);

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
  leaseAcquire,
  leaseConfirm,
  leaseAbandon,
  runRelease,
  stackStatus,
  stackPrepare,
  activationBegin,
  activationCustodyExtend,
  activationResolve,
  activationConfirmEndpoint,
  activationSkipEndpoint,
  activationAbandonEndpoint,
  activationReconcile,
  activationEnd,
  ...["port_reclaim", "claim_reassign", "claim_delete", "claims_prune"].flatMap((
    n,
  ) => [c(`${n}_preview`), c(`${n}_execute`)]),
  stackDocumentGet,
  stackDefinitionValidate,
  ...["stack_apply", "stacks_prune", "settings_update"].flatMap((
    n,
  ) => [c(`${n}_preview`), c(`${n}_execute`)]),
  stackSnapshot,
  launcherOperationBegin,
  launcherOperationRenew,
  launcherOperationComplete,
  launcherOperationGet,
  launcherOperationsList,
].filter((tool) => tool !== undefined);
