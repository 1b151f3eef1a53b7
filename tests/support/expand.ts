/**
 * The inverse of the compact result form, written from the rules in README "Compact
 * results" (not from the compactor's code): one function per record type, and one per tool.
 * Tests expand a compact result and compare it with the daemon's records.
 */
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Sets `field` to `value` when the compact record left it out. */
function restore(record: Json, field: string, value: unknown): void {
  if (!Object.hasOwn(record, field) && value !== undefined) record[field] = value;
}
const nulls = (record: Json, fields: string[]) => fields.forEach((f) => restore(record, f, null));
const empties = (record: Json, fields: string[]) => fields.forEach((f) => restore(record, f, []));

type Table = Record<string, Json>;
const fingerprint = (table: Table, pid: unknown): Json | undefined =>
  table[String(pid)] ? { pid, ...table[String(pid)] } : undefined;

interface Parent {
  port?: unknown;
  transport?: unknown;
  claimId?: unknown;
  stackId?: unknown;
  generationId?: unknown;
  project?: unknown;
}

export function expandClaim(value: unknown, parent: Parent = {}): unknown {
  if (!isObject(value)) return value;
  const out = { ...value };
  if (isObject(out.identity)) {
    const identity = { ...out.identity };
    restore(identity, "service", identity.component);
    restore(identity, "transport", parent.transport ?? "tcp");
    out.identity = identity;
  }
  restore(out, "mode", "sticky");
  restore(out, "assignedPort", parent.port ?? null);
  nulls(out, ["preferredPort", "exactPort", "assignmentExpiresAt"]);
  restore(out, "updatedAt", out.createdAt);
  restore(out, "lastUsedAt", out.updatedAt);
  return out;
}

export function expandListener(value: unknown, table: Table, parent: Parent = {}): unknown {
  if (!isObject(value)) return value;
  const out = { ...value };
  if (parent.port !== undefined) restore(out, "names", [`127.0.0.1:${parent.port}`]);
  restore(out, "port", parent.port);
  restore(out, "process", fingerprint(table, out.pid) ?? null);
  restore(out, "command", (out.process as Json | null)?.command);
  if (isObject(out.ownership)) {
    out.ownership = { ...out.ownership };
    restore(out.ownership as Json, "lineage", [out.pid]);
    restore(out.ownership as Json, "reason", "verified");
  }
  return out;
}

export function expandRun(value: unknown, table: Table, parent: Parent = {}): unknown {
  if (!isObject(value)) return value;
  const out = { ...value };
  restore(out, "claimId", parent.claimId);
  restore(out, "port", parent.port);
  nulls(out, [
    "leaseId",
    "rootPid",
    "containerId",
    "providerEvidence",
    "confirmedAt",
    "releasedAt",
  ]);
  restore(out, "rootFingerprint", fingerprint(table, out.rootPid) ?? null);
  restore(out, "bindingKind", "process");
  if (!Object.hasOwn(out, "confirmedListenerFingerprints")) {
    restore(out, "confirmedListeners", [{ pid: out.rootPid }]);
  }
  if (Array.isArray(out.confirmedListeners)) {
    out.confirmedListenerFingerprints = out.confirmedListeners.map((seen: Json) => ({
      fingerprint: fingerprint(table, seen.pid),
      observedAt: Object.hasOwn(seen, "observedAt") ? seen.observedAt : out.confirmedAt,
    }));
    delete out.confirmedListeners;
  }
  return out;
}

export function expandLease(value: unknown, parent: Parent = {}): unknown {
  if (!isObject(value)) return value;
  const out = { ...value };
  restore(out, "claimId", parent.claimId);
  restore(out, "port", parent.port);
  return out;
}

export function expandInventoryEntry(value: unknown, table: Table): unknown {
  if (!isObject(value)) return value;
  const out = { ...value };
  restore(out, "transport", "tcp");
  nulls(out, ["claim", "lease", "run", "docker"]);
  empties(out, ["listeners"]);
  const parent = {
    port: out.port,
    transport: out.transport,
    claimId: isObject(out.claim) ? out.claim.id : undefined,
  };
  out.claim = expandClaim(out.claim, parent);
  out.lease = expandLease(out.lease, parent);
  out.run = expandRun(out.run, table, parent);
  out.listeners = (out.listeners as unknown[]).map((l) => expandListener(l, table, parent));
  return out;
}

export function expandDefinition(value: unknown, parent: Parent = {}): unknown {
  if (!isObject(value) || !isObject(value.components)) return value;
  const out = { ...value };
  restore(out, "version", 1);
  restore(out, "project", parent.project);
  out.components = Object.fromEntries(
    Object.entries(value.components).map(([name, component]) => {
      const c = { ...(component as Json) };
      if (isObject(c.endpoints)) {
        c.endpoints = Object.fromEntries(
          Object.entries(c.endpoints).map(([key, e]) => {
            const endpoint = { ...(e as Json) };
            restore(endpoint, "transport", "tcp");
            restore(endpoint, "publish", true);
            restore(endpoint, "required", true);
            return [key, endpoint];
          }),
        );
      }
      restore(c, "dependencies", {});
      c.dependencies = Object.fromEntries(
        Object.entries(c.dependencies as Json).map(([alias, d]) => {
          const dependency = { ...(d as Json) };
          restore(dependency, "required", true);
          return [alias, dependency];
        }),
      );
      return [name, c];
    }),
  );
  return out;
}

export function expandStack(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out = { ...value };
  out.definition = expandDefinition(out.definition, { project: out.project });
  restore(out, "updatedAt", out.createdAt);
  restore(out, "lastUsedAt", out.updatedAt);
  return out;
}

export function expandGeneration(value: unknown, parent: Parent = {}): unknown {
  if (!isObject(value)) return value;
  const out = { ...value };
  restore(out, "stackId", parent.stackId);
  nulls(out, ["invalidatedAt"]);
  if (Array.isArray(out.endpoints)) {
    out.endpoints = out.endpoints.map((e: Json) => {
      const endpoint = { ...e };
      restore(endpoint, "transport", "tcp");
      restore(endpoint, "host", "127.0.0.1");
      restore(endpoint, "required", true);
      return endpoint;
    });
  }
  return out;
}

export function expandActivation(value: unknown, parent: Parent = {}): unknown {
  if (!isObject(value)) return value;
  const out = { ...value };
  restore(out, "stackId", parent.stackId);
  restore(out, "generationId", parent.generationId);
  nulls(out, ["confirmedAt", "endedAt"]);
  // updatedAt absent = the latest of createdAt, confirmedAt and endedAt.
  const changes = [out.createdAt, out.confirmedAt, out.endedAt].filter(
    (at): at is string => typeof at === "string",
  );
  restore(out, "updatedAt", changes.sort((a, b) => Date.parse(b) - Date.parse(a))[0]);
  if (Array.isArray(out.endpoints)) {
    let previousExpiry: unknown = null;
    out.endpoints = out.endpoints.map((e: Json) => {
      const endpoint = { ...e };
      nulls(endpoint, ["leaseId", "runId", "failureReason"]);
      restore(endpoint, "expiresAt", previousExpiry);
      previousExpiry = endpoint.expiresAt;
      restore(endpoint, "updatedAt", out.updatedAt);
      restore(endpoint, "required", true);
      restore(endpoint, "bindingKind", "process");
      return endpoint;
    });
  }
  return out;
}

export function expandProvider(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out = { ...value };
  nulls(out, ["runId", "containerId"]);
  restore(out, "bindingKind", "process");
  if (out.status === "active" && out.bindingKind === "process") {
    restore(out, "reason", "process-ownership-verified");
  }
  return out;
}

const endpointOf = (records: unknown, of: Json): Json | undefined =>
  (Array.isArray(records) ? records as Json[] : []).find((r) =>
    r.component === of.component && r.endpoint === of.endpoint
  );

export function expandStackStatus(value: Json): Json {
  const out = { ...value };
  nulls(out, ["generation", "activation"]);
  empties(out, ["providers"]);
  const stackId = isObject(out.stack) ? out.stack.id : undefined;
  const generationId = isObject(out.generation) ? out.generation.id : undefined;
  out.stack = expandStack(out.stack);
  if (isObject(out.generation) && isObject(out.stack)) {
    out.generation = { ...out.generation };
    restore(out.generation as Json, "revision", out.stack.currentRevision);
  }
  out.generation = expandGeneration(out.generation, { stackId });
  const published = isObject(out.generation) ? out.generation.endpoints : undefined;
  if (isObject(out.activation) && Array.isArray(out.activation.endpoints)) {
    out.activation = {
      ...out.activation,
      endpoints: out.activation.endpoints.map((e: Json) => {
        const endpoint = { ...e };
        restore(endpoint, "claimId", endpointOf(published, e)?.claimId);
        return endpoint;
      }),
    };
  }
  out.activation = expandActivation(out.activation, { stackId, generationId });
  const activated = isObject(out.activation) ? out.activation.endpoints : undefined;
  out.providers = (out.providers as Json[]).map((p) => {
    const provider = { ...p };
    restore(provider, "runId", endpointOf(activated, p)?.runId);
    return expandProvider(provider);
  });
  return out;
}

export function expandAddresses(value: unknown, component: unknown): unknown {
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, e]) => {
      const entry = { ...(e as Json) };
      restore(entry, "component", component);
      restore(entry, "endpoint", key);
      return [key, entry];
    }),
  );
}

export function expandLauncherOperation(
  value: unknown,
  ids: { id?: unknown; deadlineAt?: unknown } = {},
): unknown {
  if (!isObject(value)) return value;
  const out = { ...value };
  restore(out, "id", ids.id);
  restore(out, "deadlineAt", ids.deadlineAt);
  nulls(out, [
    "generationId",
    "outcome",
    "completedAt",
    "durationMilliseconds",
    "exitCode",
    "signal",
    "beforeEvidence",
    "afterEvidence",
    "failure",
    "integration",
  ]);
  restore(out, "degraded", false);
  restore(out, "executionMode", "finite");
  restore(out, "renewedAt", out.startedAt);
  return out;
}

export function expandHistoryEvents(items: unknown[]): unknown[] {
  let previous: Json = {};
  return items.map((item) => {
    const out = { ...(item as Json) };
    const eventType = String(out.eventType);
    const implied = eventType.includes(".")
      ? eventType.slice(0, eventType.lastIndexOf(".")).replaceAll(".", "-")
      : undefined;
    const impliedType = !Object.hasOwn(out, "entityType");
    restore(out, "entityType", implied);
    restore(out, "origin", previous.origin ?? null);
    if (isObject(out.operation)) {
      out.payload = expandLauncherOperation(out.operation, { id: out.entityId });
      delete out.operation;
    }
    restore(out, "payload", {});
    if (impliedType && out.entityType === "claim" && isObject(out.payload)) {
      const payload = { ...out.payload };
      if (isObject(payload.identity)) {
        payload.identity = (expandClaim({ identity: payload.identity }) as Json).identity;
      }
      if (isObject(payload.claim)) {
        const claimed = { ...payload.claim };
        restore(claimed, "id", out.entityId);
        payload.claim = expandClaim(claimed);
      }
      if (eventType === "claim.created") {
        nulls(payload, ["preferredPort", "exactPort"]);
        restore(payload, "mode", "sticky");
      }
      out.payload = payload;
    }
    previous = out;
    return out;
  });
}

function expandActivationAnswer(data: Json): Json {
  const out = { ...data };
  if (out.activation) out.activation = expandActivation(out.activation);
  if (Array.isArray(out.leases)) {
    const endpoints = isObject(out.activation) ? out.activation.endpoints as Json[] : [];
    out.leases = out.leases.map((l: Json) => {
      const lease = { ...l };
      nulls(lease, ["docker"]);
      const own = endpoints.find((e) => e.leaseId === lease.leaseId);
      restore(lease, "bindingKind", own?.bindingKind);
      restore(lease, "leaseExpiresAt", own?.expiresAt);
      restore(lease, "custodyExpiresAt", out.custodyExpiresAt);
      restore(lease, "maximumCustodyExpiresAt", out.maximumCustodyExpiresAt);
      return lease;
    });
  }
  if (Array.isArray(out.providers)) out.providers = out.providers.map(expandProvider);
  return out;
}

function expandPage(data: Json, item: (value: unknown, table: Table) => unknown): Json {
  const { processes, ...rest } = data;
  const table = (processes ?? {}) as Table;
  return { ...rest, items: (rest.items as unknown[]).map((i) => item(i, table)) };
}

function withTable(data: Json, expand: (value: Json, table: Table) => unknown): Json {
  const { processes, ...rest } = data;
  return expand(rest, (processes ?? {}) as Table) as Json;
}

const PRUNE_LISTS: Record<string, string[]> = {
  "claims.prune": ["candidates", "deletedClaimIds", "skipped"],
  "stacks.prune": ["candidates", "blocked", "deletedStackIds", "deletedClaimIds", "skipped"],
};

function expandPreview(data: Json, table: Table): Json {
  const out = { ...data };
  const proposal = isObject(out.proposal) ? { ...out.proposal } : undefined;
  if (proposal?.definition) proposal.definition = expandDefinition(proposal.definition);
  if (isObject(out.observed)) {
    const observed = { ...out.observed };
    if (observed.claim) observed.claim = expandClaim(observed.claim);
    if (Array.isArray(observed.targets)) {
      observed.targets = observed.targets.map((t) =>
        expandListener(t, table, { port: observed.port })
      );
    }
    restore(observed, "policy", proposal?.policy);
    if (out.action === "port.reclaim") nulls(observed, ["reason", "launcherAction"]);
    if (out.action === "stack.apply") {
      if (isObject(observed.document)) {
        const document = { ...observed.document };
        nulls(document, ["fingerprint", "revision"]);
        empties(document, ["issues"]);
        observed.document = document;
      }
      if (isObject(observed.stack)) {
        const stack = { ...observed.stack };
        restore(stack, "revision", proposal?.revision);
        nulls(stack, ["existing"]);
        observed.stack = stack;
      }
    }
    if (isObject(observed.inventory)) {
      const inventory = { ...observed.inventory };
      restore(inventory, "port", observed.port);
      restore(inventory, "claim", observed.claim);
      restore(inventory, "listeners", observed.targets);
      observed.inventory = expandInventoryEntry(inventory, table);
    }
    if (isObject(observed.stack) && proposal) {
      observed.stack = { ...observed.stack };
      restore(observed.stack as Json, "definition", proposal.definition);
    }
    if (proposal && isObject(proposal.updates) && isObject(observed.current)) {
      restore(proposal, "proposed", { ...observed.current, ...proposal.updates });
    }
    if (observed.dryRun === true) empties(observed, PRUNE_LISTS[String(out.action)] ?? []);
    out.observed = observed;
  }
  if (proposal) out.proposal = proposal;
  return out;
}

/** Expands one tool's compact data back to the daemon's records. */
export function expandResult(tool: string, data: Json): Json {
  switch (tool) {
    case "portreeve_diagnostics": {
      const out = { ...data, bridge: { ...(data.bridge as Json) } };
      nulls(out.bridge as Json, ["label"]);
      nulls(out, ["guidance"]);
      return out;
    }
    case "portreeve_compatibility": {
      const out = { ...data };
      nulls(out, ["guidance"]);
      return out;
    }
    case "portreeve_ports_list":
      return expandPage(data, expandInventoryEntry);
    case "portreeve_port_inspect":
      return withTable(data, expandInventoryEntry);
    case "portreeve_claims_list":
      return expandPage(data, (c) => expandClaim(c));
    case "portreeve_claim_get":
      return expandClaim(data) as Json;
    case "portreeve_stacks_list":
      return expandPage(data, expandStack);
    case "portreeve_stack_get":
      return expandStack(data) as Json;
    case "portreeve_generations_list":
      return expandPage(data, (g) => expandGeneration(g));
    case "portreeve_generation_get":
      return expandGeneration(data) as Json;
    case "portreeve_activations_list":
      return expandPage(data, (a) => expandActivation(a));
    case "portreeve_activation_get":
      return expandActivation(data) as Json;
    case "portreeve_history_list":
      return { ...data, items: expandHistoryEvents(data.items as unknown[]) };
    case "portreeve_stack_status":
      return expandStackStatus(data);
    case "portreeve_stack_prepare":
      return { ...data, generation: expandGeneration(data.generation) };
    case "portreeve_activation_begin":
    case "portreeve_activation_confirm_endpoint":
    case "portreeve_activation_skip_endpoint":
    case "portreeve_activation_abandon_endpoint":
    case "portreeve_activation_reconcile":
    case "portreeve_activation_end": {
      const out = expandActivationAnswer(data);
      // Reconcile always reports providers; the compact form leaves them out when empty.
      if (tool === "portreeve_activation_reconcile") empties(out, ["providers"]);
      return out;
    }
    case "portreeve_activation_resolve":
    case "portreeve_stack_snapshot": {
      const out = { ...data, own: expandAddresses(data.own, data.component) };
      if (tool === "portreeve_activation_resolve" && isObject(out.own)) {
        for (const entry of Object.values(out.own)) restore(entry as Json, "dockerNetwork", null);
      }
      return out;
    }
    case "portreeve_stack_document_get": {
      const out = { ...data };
      nulls(out, ["fingerprint", "definition", "revision"]);
      empties(out, ["issues"]);
      out.definition = expandDefinition(out.definition);
      return out;
    }
    case "portreeve_stack_definition_validate": {
      const out = { ...data };
      nulls(out, ["definition", "revision"]);
      empties(out, ["issues"]);
      if (out.valid === true) out.definition = expandDefinition(out.definition);
      return out;
    }
    case "portreeve_launcher_operation_get":
      return expandLauncherOperation(data) as Json;
    case "portreeve_launcher_operations_list":
      return { ...data, items: (data.items as unknown[]).map((o) => expandLauncherOperation(o)) };
    case "portreeve_launcher_operation_begin":
    case "portreeve_launcher_operation_renew":
      return {
        ...data,
        operation: expandLauncherOperation(data.operation, {
          id: data.operationId,
          deadlineAt: data.operationDeadlineAt,
        }),
      };
    case "portreeve_launcher_operation_complete":
      return { ...data, operation: expandLauncherOperation(data.operation) };
    case "portreeve_port_reclaim_preview":
    case "portreeve_claim_delete_preview":
    case "portreeve_claim_reassign_preview":
    case "portreeve_stack_apply_preview":
    case "portreeve_settings_update_preview":
    case "portreeve_claims_prune_preview":
    case "portreeve_stacks_prune_preview":
      return withTable(data, (rest, table) => expandPreview(rest, table));
    case "portreeve_stack_apply_execute": {
      if (!isObject(data.result)) return data;
      const result = { ...data.result };
      if (isObject(result.stack)) {
        result.stack = expandStack(result.stack);
        restore(result, "revision", (result.stack as Json).currentRevision);
      }
      return { ...data, result };
    }
    default:
      return data;
  }
}
