/**
 * A fixed sequence of tool calls against the simulator, mirroring the recorded session of
 * PortReeve's own bridge call for call (`seq` is that session's step), so the bytes a model
 * sees can be compared side by side. It covers every read tool and the lease, stack,
 * activation, launcher and receipt flows. The caller decides how calls are made (real stdio
 * or in process) and whether results are compact or full; the sequence only reads fields
 * that keep their names in both forms.
 */
import { type Simulator, startSimulator } from "../../src/simulator/mod.ts";
import { type Bridge, createBridge } from "../../src/bridge/mod.ts";
import { CredentialFragments } from "../../src/custody/fragments.ts";

type Data = Record<string, unknown>;

export interface StepResult {
  ok: boolean;
  data?: Data;
}

/** Makes one call; `seq` is the matching step of the recorded reference session. */
export type Caller = (seq: number, tool: string, args: Data) => Promise<StepResult>;

export interface ScenarioPlace {
  sim: Simulator;
  /** Existing, canonical directories (the simulator checks them like the daemon does). */
  workspace: string;
  stackRoot: string;
}

/**
 * A place for the sequence in a fresh folder (`prefix` names it, under `parent` when given): the
 * simulator on a socket there, the workspace and stack root, and a bridge in this process on
 * that socket. `close` stops both and removes the folder.
 */
export async function scenarioBridge(
  prefix: string,
  parent?: string,
): Promise<ScenarioPlace & { dir: string; bridge: Bridge; close(): Promise<void> }> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ dir: parent, prefix }));
  const socketPath = `${dir}/portreeve.sock`;
  const sim = await startSimulator({ socketPath, observeHost: false });
  const [workspace, stackRoot] = [`${dir}/w`, `${dir}/s`];
  await Deno.mkdir(workspace);
  await Deno.mkdir(stackRoot);
  const bridge = createBridge({
    socket: { path: socketPath, source: "flag" },
    toolset: "full",
    fragments: new CredentialFragments(),
  });
  return {
    dir,
    sim,
    workspace,
    stackRoot,
    bridge,
    async close() {
      await bridge.close();
      await sim.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const STACK = (project: string) => ({
  version: 1,
  project,
  components: {
    api: { endpoints: { http: { allocation: { preferredPort: 18180 } } } },
    web: {
      endpoints: { http: { allocation: { preferredPort: 18181 } } },
      dependencies: { backend: { component: "api", endpoint: "http" } },
    },
  },
});

const field = (data: Data | undefined, ...path: string[]): unknown =>
  path.reduce<unknown>((v, key) => (v as Data | undefined)?.[key], data);
const text = (data: Data | undefined, ...path: string[]) => String(field(data, ...path));

/** Runs the sequence; every step must succeed unless the reference's step was refused too. */
export async function runResultScenario(call: Caller, place: ScenarioPlace): Promise<void> {
  const { sim, workspace, stackRoot } = place;
  const must = async (seq: number, tool: string, args: Data = {}) => {
    const result = await call(seq, tool, args);
    if (!result.ok) {
      throw new Error(`scenario step ${seq} ${tool} failed: ${JSON.stringify(result)}`);
    }
    return result.data;
  };
  const claim = { project: "anchor-demo", workspaceRoot: workspace, component: "api" };
  const acquire = {
    claim: { ...claim, endpoint: "http" },
    allocation: { mode: "sticky", preferredPort: 18080, replacementPolicy: "never" },
  };

  await must(1, "portreeve_diagnostics");
  await must(2, "portreeve_compatibility");
  await must(3, "portreeve_health");
  await must(4, "portreeve_settings_get");
  await must(5, "portreeve_ports_list", { limit: 50 });
  const lease = await must(6, "portreeve_lease_acquire", acquire);
  await must(7, "portreeve_lease_acquire", acquire);
  await must(8, "portreeve_port_inspect", { port: 18080 });
  sim.control.addListener(18080, 14390, { ppid: 14339, command: "node" });
  const confirm = { credentialHandle: text(lease, "credentialHandle"), rootPid: 14390 };
  const confirmed = await must(9, "portreeve_lease_confirm", confirm);
  await must(10, "portreeve_lease_confirm", confirm);
  await must(11, "portreeve_claims_list", { workspaceRoot: workspace, limit: 50 });
  const claimId = text(lease, "claimId");
  await must(12, "portreeve_claim_get", { id: claimId });
  await must(13, "portreeve_ports_list", { claimed: true, limit: 50 });
  await must(14, "portreeve_port_inspect", { port: 18080 });
  await must(15, "portreeve_ports_list", { listening: true, limit: 2 });
  await call(16, "portreeve_claim_delete_preview", { claimId });
  await must(17, "portreeve_port_reclaim_preview", { port: 18080, policy: "graceful" });
  sim.control.removeListener(18080);
  const runId = text(confirmed, "runId");
  await must(18, "portreeve_run_release", { runId });
  await must(19, "portreeve_run_release", { runId });
  await must(20, "portreeve_port_inspect", { port: 18080 });
  const deletion = await must(21, "portreeve_claim_delete_preview", { claimId });
  const execute = { receiptId: text(deletion, "receiptId"), claimId };
  await must(22, "portreeve_claim_delete_execute", execute);
  await must(23, "portreeve_claim_delete_execute", execute);
  await must(24, "portreeve_claims_list", { workspaceRoot: workspace, limit: 50 });
  const worker = await must(25, "portreeve_lease_acquire", {
    claim: { ...claim, component: "worker" },
    allocation: { mode: "ephemeral" },
  });
  await must(26, "portreeve_lease_abandon", {
    credentialHandle: text(worker, "credentialHandle"),
    reason: "startup-error",
  });

  await must(27, "portreeve_stack_document_get", { stackRoot });
  await must(28, "portreeve_stack_definition_validate", { definition: STACK("anchor-stack") });
  await must(29, "portreeve_stack_definition_validate", {
    definition: {
      version: 1,
      project: "x",
      components: {
        a: { endpoints: { http: { allocation: { preferredPort: 1, exactPort: 2 } } } },
      },
    },
  });
  const apply = await must(30, "portreeve_stack_apply_preview", {
    stackRoot,
    definition: STACK("anchor-stack"),
  });
  const applyExecute = { receiptId: text(apply, "receiptId"), stackRoot };
  const applied = await must(31, "portreeve_stack_apply_execute", applyExecute);
  await must(32, "portreeve_stack_apply_execute", applyExecute);
  await must(34, "portreeve_stack_document_get", { stackRoot });
  await must(35, "portreeve_stacks_list", { limit: 50 });
  const stackId = text(applied, "result", "stack", "id");
  await must(36, "portreeve_stack_get", { id: stackId });
  await must(37, "portreeve_stack_status", { stackId });
  const prepared = await must(38, "portreeve_stack_prepare", { stackId });
  await must(39, "portreeve_stack_prepare", { stackId });
  await must(40, "portreeve_generations_list", { stackId, limit: 50 });
  const generationId = text(prepared, "generation", "id");
  await must(41, "portreeve_generation_get", { id: generationId });
  const begun = await must(42, "portreeve_activation_begin", {
    generationId,
    bindings: { api: "process", web: "process" },
  });
  const activationId = text(begun, "activation", "id");
  await must(43, "portreeve_activation_custody_extend", { activationId, custodyMinutes: 20 });
  await must(44, "portreeve_activation_resolve", { activationId, component: "api" });
  await must(45, "portreeve_activation_resolve", { activationId, component: "web" });
  const handles = field(begun, "leases") as Data[];
  const handleOf = (component: string) =>
    text(handles.find((h) => h.component === component), "credentialHandle");
  sim.control.addListener(18180, 14500, { ppid: 14339, command: "node" });
  sim.control.addListener(18181, 14511, { ppid: 14339, command: "node" });
  for (const [seq, component, rootPid] of [[46, "api", 14500], [47, "web", 14511]] as const) {
    await must(seq, "portreeve_activation_confirm_endpoint", {
      activationId,
      credentialHandle: handleOf(component),
      bindingKind: "process",
      rootPid,
    });
  }
  await must(48, "portreeve_activation_get", { id: activationId });
  const first = await must(49, "portreeve_ports_list", { listening: true, limit: 1 });
  await must(50, "portreeve_ports_list", {
    listening: true,
    limit: 1,
    afterCursor: text(first, "page", "nextCursor"),
  });
  await must(51, "portreeve_stack_snapshot", {
    activationId,
    component: "web",
    gatewayHost: "host.docker.internal",
  });
  await must(52, "portreeve_stack_status", { stackId });
  await must(53, "portreeve_activations_list", { stackId, limit: 50 });
  const operation = await must(54, "portreeve_launcher_operation_begin", {
    stackId,
    operation: "status",
    launcherRevision: "a".repeat(64),
    callerOperationId: "7c756c8d-fcda-4a45-ba5f-26e12adfe4c4",
  });
  const held = {
    operationId: text(operation, "operationId"),
    credentialHandle: text(operation, "credentialHandle"),
  };
  await must(55, "portreeve_launcher_operation_renew", held);
  await must(56, "portreeve_launcher_operation_complete", {
    ...held,
    completion: { outcome: "succeeded", exitCode: 0 },
  });
  await must(57, "portreeve_launcher_operation_get", { operationId: held.operationId });
  await must(58, "portreeve_launcher_operations_list", { stackId, limit: 20 });
  await call(59, "portreeve_activation_end", { activationId });
  sim.control.removeListener(18180);
  sim.control.removeListener(18181);
  await must(60, "portreeve_activation_end", { activationId });
  await must(61, "portreeve_activation_end", { activationId });
  await must(62, "portreeve_activation_reconcile", { activationId });
  await must(63, "portreeve_stack_status", { stackId });
  await must(64, "portreeve_settings_update_preview", { updates: { excludedPorts: [18099] } });
  await must(65, "portreeve_claims_prune_preview", { olderThanMilliseconds: 0 });
  await must(66, "portreeve_stacks_prune_preview", { olderThanMilliseconds: 0 });
  let cursor: string | undefined;
  for (const seq of [67, 68, 69]) {
    const history = await must(seq, "portreeve_history_list", {
      limit: 10,
      ...(cursor ? { afterCursor: cursor } : {}),
    });
    cursor = field(history, "page", "nextCursor") as string | undefined;
    if (!cursor) break;
  }
  cursor = undefined;
  for (const seq of [70, 71, 72]) {
    const history = await must(seq, "portreeve_history_list", {
      limit: 2,
      entityType: "claim",
      ...(cursor ? { afterCursor: cursor } : {}),
    });
    cursor = field(history, "page", "nextCursor") as string | undefined;
    if (!cursor) break;
  }
  // The reference session's closing mistakes, each refused, and one read that succeeds.
  await call(73, "portreeve_port_inspect", { port: 70000 });
  await call(74, "portreeve_lease_confirm", { credentialHandle: "A".repeat(43), rootPid: 1 });
  await call(75, "portreeve_claim_get", { id: "f801cd12-eec3-4097-a649-c5f58fd345c0" });
  await call(76, "portreeve_stack_document_get", { stackRoot: "relative/dir" });
  // The reference read /etc here: any existing folder without a document does (the restricted
  // CI run may read only the clone and the temp dir).
  await must(77, "portreeve_stack_document_get", { stackRoot: workspace });
  await call(79, "portreeve_history_list", { limit: 5, afterCursor: "not-a-real-cursor" });
}
