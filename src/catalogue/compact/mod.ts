/**
 * Compact results: which record compactor shapes each tool's `data`, and which tools accept
 * `detail: "full"` for the daemon's records whole. The catalogue applies this after the
 * tool's data has been checked against its full shape and before the result is built, so
 * structuredContent and the text block carry the same compact data.
 */
import { copy, dropEmpty, dropIf, dropNulls, isObject, type Json } from "./fold.ts";
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

/** activation + its leases (begin) or providers (reconcile, settle). */
const activationAnswer: Compactor = (data) => {
  const out = copy(data);
  if (out.activation) out.activation = records.activation(out.activation);
  if (Array.isArray(out.leases)) {
    out.leases = out.leases.map((l) => {
      if (!isObject(l)) return l;
      const lease = copy(l);
      dropNulls(lease, ["docker"]);
      return lease;
    });
  }
  if (Array.isArray(out.providers)) out.providers = out.providers.map(records.provider);
  dropEmpty(out, ["providers"]);
  return out;
};

/** Preview evidence the records above describe; everything else in it stays as sent. */
const previewEvidence: Compactor = (data) => {
  const processes = new Processes();
  const out = copy(data);
  if (isObject(out.observed)) {
    const observed = copy(out.observed);
    if (observed.inventory) {
      observed.inventory = records.inventoryEntry(observed.inventory, processes);
    }
    if (observed.claim) observed.claim = records.claim(observed.claim);
    if (Array.isArray(observed.targets)) {
      const port = isObject(observed) ? observed.port : undefined;
      observed.targets = observed.targets.map((t) => records.listener(t, processes, { port }));
    }
    out.observed = observed;
  }
  return processes.attach(out);
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
  portreeve_stack_document_get: nullsOut(["fingerprint", "definition", "revision"], ["issues"]),
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
  portreeve_stack_apply_execute: field(
    "result",
    (r) => isObject(r) && r.stack ? { ...r, stack: records.stack(r.stack) } : r,
  ),
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

export function hasCompactForm(tool: string): boolean {
  return Object.hasOwn(COMPACTORS, tool);
}
