/**
 * Compact results: which record compactor shapes each tool's `data`, and which tools accept
 * `detail: "full"` for the daemon's records whole. The catalogue applies this after the
 * tool's data has been checked against its full shape and before the result is built, so
 * structuredContent and the text block carry the same compact data.
 */
import { copy, dropEmpty, dropIf, dropNulls, isObject, type Json, same } from "./fold.ts";
import * as records from "./records.ts";

type Compactor = (data: Json) => Json;

const { Processes } = records;

/** A page of records compacted one by one; `withProcesses` adds the page's process table. */
const pageOf =
  (item: (value: unknown, processes: records.Processes) => unknown): Compactor => (data) => {
    const processes = new Processes();
    const items = Array.isArray(data.items)
      ? data.items.map((i) => item(i, processes))
      : data.items;
    return processes.attach({ ...data, items });
  };

const field = (name: string, compact: (value: unknown) => unknown): Compactor => (data) =>
  data[name] === undefined ? data : { ...data, [name]: compact(data[name]) };

const nullsOut = (fields: string[], empty: string[] = []): Compactor => (data) => {
  const out = copy(data);
  dropNulls(out, fields);
  dropEmpty(out, empty);
  return out;
};

const chain = (...steps: Compactor[]): Compactor => (data) =>
  steps.reduce((acc, step) => step(acc), data);

/** The held-operation answers: operation.id and deadlineAt are the answer's own. */
const heldOperation: Compactor = (data) => {
  if (!isObject(data.operation)) return data;
  const operation = records.launcherOperation(data.operation) as Json;
  dropIf(operation, "id", data.operationId);
  dropIf(operation, "deadlineAt", data.operationDeadlineAt);
  return { ...data, operation };
};

/**
 * activation + its leases (begin) or providers (reconcile, settle). A lease's bindingKind
 * and leaseExpiresAt are its activation endpoint's (same leaseId), its custody times the
 * answer's; its port stays.
 */
const activationAnswer: Compactor = (data) => {
  const out = copy(data);
  const endpoints = isObject(out.activation) && Array.isArray(out.activation.endpoints)
    ? out.activation.endpoints.filter(isObject)
    : [];
  if (out.activation) out.activation = records.activation(out.activation);
  if (Array.isArray(out.leases)) {
    out.leases = out.leases.map((l) => {
      if (!isObject(l)) return l;
      const lease = copy(l);
      dropNulls(lease, ["docker"]);
      const own = endpoints.find((e) => e.leaseId === lease.leaseId);
      dropIf(lease, "bindingKind", own?.bindingKind);
      dropIf(lease, "leaseExpiresAt", own?.expiresAt);
      // Custody is per begin: every lease's is the answer's unless it says otherwise.
      dropIf(lease, "custodyExpiresAt", out.custodyExpiresAt);
      dropIf(lease, "maximumCustodyExpiresAt", out.maximumCustodyExpiresAt);
      return lease;
    });
  }
  if (Array.isArray(out.providers)) out.providers = out.providers.map(records.provider);
  dropEmpty(out, ["providers"]);
  return out;
};

/** Empty collections of the prune previews' evidence (absent = empty). */
const PRUNE_LISTS = ["candidates", "blocked", "deletedClaimIds", "deletedStackIds", "skipped"];

/**
 * Preview evidence the records above describe; everything else in it stays as sent. Parts
 * that repeat another part of the same preview are left out: the inventory's claim (=
 * observed.claim) and listeners (= observed.targets), the stack's definition and revision
 * (= the proposal's), the proposed settings (= current settings with the updates applied),
 * a reclaim's policy (= the proposal's) and its inventory's port (= observed.port).
 */
const previewEvidence: Compactor = (data) => {
  const processes = new Processes();
  const out = copy(data);
  const proposal = isObject(out.proposal) ? copy(out.proposal) : undefined;
  if (isObject(out.observed)) {
    const observed = copy(out.observed);
    const original = out.observed;
    if (isObject(observed.inventory)) {
      const inventory = records.inventoryEntry(observed.inventory, processes) as Json;
      const whole = original.inventory as Json;
      // Absent here means "as in observed"; a null or empty that differs is written out.
      const repeats: [field: string, repeated: string, none: unknown][] = [
        ["claim", "claim", null],
        ["listeners", "targets", []],
      ];
      for (const [field, repeated, none] of repeats) {
        if (original[repeated] === undefined) continue;
        if (same(original[repeated], whole[field])) delete inventory[field];
        else if (!(field in inventory)) inventory[field] = none;
      }
      // A reclaim's inventory is of the port it names.
      if (observed.port !== undefined) dropIf(inventory, "port", observed.port);
      observed.inventory = inventory;
    }
    if (proposal) dropIf(observed, "policy", proposal.policy);
    if (out.action === "port.reclaim") dropNulls(observed, ["reason", "launcherAction"]);
    if (out.action === "stack.apply") {
      if (isObject(observed.document)) {
        const document = copy(observed.document);
        dropNulls(document, ["fingerprint", "revision"]);
        dropEmpty(document, ["issues"]);
        observed.document = document;
      }
      if (isObject(observed.stack) && proposal) {
        const stack = copy(observed.stack);
        dropIf(stack, "revision", proposal.revision);
        dropNulls(stack, ["existing"]);
        observed.stack = stack;
      }
    }
    if (observed.claim) observed.claim = records.claim(observed.claim);
    if (Array.isArray(observed.targets)) {
      const port = observed.port;
      observed.targets = observed.targets.map((t) => records.listener(t, processes, { port }));
    }
    if (
      isObject(observed.stack) && proposal && same(observed.stack.definition, proposal.definition)
    ) {
      const stack = copy(observed.stack);
      delete stack.definition;
      observed.stack = stack;
    }
    if (proposal && isObject(proposal.updates) && isObject(observed.current)) {
      dropIf(proposal, "proposed", { ...observed.current, ...proposal.updates });
    }
    if (observed.dryRun === true) dropEmpty(observed, PRUNE_LISTS);
    out.observed = observed;
  }
  if (proposal) {
    if (proposal.definition) proposal.definition = records.definition(proposal.definition);
    out.proposal = proposal;
  }
  return processes.attach(out);
};

/** An execute's result does not repeat the revision of the stack it returns. */
const executeResult: Compactor = (data) => {
  if (!isObject(data.result)) return data;
  const result = copy(data.result);
  if (isObject(result.stack)) {
    dropIf(result, "revision", result.stack.currentRevision);
    result.stack = records.stack(result.stack);
  }
  return { ...data, result };
};

const resolution: Compactor = (data) => ({
  ...data,
  own: records.addresses(data.own, data.component),
});

const COMPACTORS: Record<string, Compactor> = {
  portreeve_diagnostics: chain(
    field("bridge", (b) => isObject(b) ? nullsOut(["label"])(b) : b),
    nullsOut(["guidance"]),
  ),
  portreeve_compatibility: nullsOut(["guidance"]),
  portreeve_ports_list: pageOf(records.inventoryEntry),
  portreeve_port_inspect: (data) => {
    const processes = new Processes();
    return processes.attach(records.inventoryEntry(data, processes) as Json);
  },
  portreeve_claims_list: pageOf((c) => records.claim(c)),
  portreeve_claim_get: (data) => records.claim(data) as Json,
  portreeve_stacks_list: pageOf(records.stack),
  portreeve_stack_get: (data) => records.stack(data) as Json,
  portreeve_generations_list: pageOf((g) => records.generation(g)),
  portreeve_generation_get: (data) => records.generation(data) as Json,
  portreeve_activations_list: pageOf((a) => records.activation(a)),
  portreeve_activation_get: (data) => records.activation(data) as Json,
  portreeve_history_list: (data) =>
    Array.isArray(data.items) ? { ...data, items: records.historyEvents(data.items) } : data,
  portreeve_stack_status: (data) => records.stackStatus(data) as Json,
  portreeve_stack_prepare: field("generation", (g) => records.generation(g)),
  portreeve_activation_begin: activationAnswer,
  portreeve_activation_confirm_endpoint: activationAnswer,
  portreeve_activation_skip_endpoint: activationAnswer,
  portreeve_activation_abandon_endpoint: activationAnswer,
  portreeve_activation_reconcile: activationAnswer,
  portreeve_activation_end: activationAnswer,
  portreeve_activation_resolve: resolution,
  portreeve_stack_snapshot: resolution,
  portreeve_stack_document_get: chain(
    field("definition", (d) => records.definition(d)),
    nullsOut(["fingerprint", "definition", "revision"], ["issues"]),
  ),
  portreeve_stack_definition_validate: chain(
    (data) => data.valid === true ? field("definition", (d) => records.definition(d))(data) : data,
    nullsOut(["definition", "revision"], ["issues"]),
  ),
  portreeve_launcher_operation_get: (data) => records.launcherOperation(data) as Json,
  portreeve_launcher_operations_list: pageOf(records.launcherOperation),
  portreeve_launcher_operation_begin: heldOperation,
  portreeve_launcher_operation_renew: heldOperation,
  portreeve_launcher_operation_complete: field("operation", records.launcherOperation),
  portreeve_port_reclaim_preview: previewEvidence,
  portreeve_claim_delete_preview: previewEvidence,
  portreeve_claim_reassign_preview: previewEvidence,
  portreeve_stack_apply_preview: previewEvidence,
  portreeve_settings_update_preview: previewEvidence,
  portreeve_claims_prune_preview: previewEvidence,
  portreeve_stacks_prune_preview: previewEvidence,
  portreeve_stack_apply_execute: executeResult,
};

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

/** The compact form of a tool's data (unchanged for tools without a compact form). */
export function compactData(tool: string, data: unknown): unknown {
  const compactor = Object.hasOwn(COMPACTORS, tool) ? COMPACTORS[tool] : undefined;
  return compactor && isObject(data) ? compactor(data) : data;
}

/**
 * How many JSON characters one page item adds to a compact page of `tool`: the item compacted
 * alone, with the process entries it brings. Alone it is never smaller than within its page.
 * Undefined for a tool whose data is not compacted (its items are shown as sent).
 */
export function compactItemChars(tool: string): ((item: unknown) => number) | undefined {
  if (!hasCompactForm(tool)) return undefined;
  const shown = (items: unknown[]) => JSON.stringify(compactData(tool, { items, page: {} })).length;
  // Only paged tools measure items; the others never pay for the empty page.
  let empty: number | undefined;
  return (item) => shown([item]) - (empty ??= shown([]));
}

export function hasCompactForm(tool: string): boolean {
  return Object.hasOwn(COMPACTORS, tool);
}
