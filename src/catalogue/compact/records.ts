/**
 * The compact form of each daemon record type (README "Compact results" states the rules
 * once). A compactor takes the daemon's record as the tool returns it and gives a smaller
 * equivalent: null and empty fields the schema marks as "absent: none" are left out,
 * fields implied by the enclosing record are not repeated, process fingerprints go to the
 * result's process table. Anything that does not match its rule stays as it was.
 */
import {
  copy,
  dropEmpty,
  dropIf,
  dropNulls,
  isObject,
  type Json,
  Processes,
  same,
} from "./fold.ts";

export { Processes };

/** What a record's enclosing record already says. */
export interface Parent {
  port?: unknown;
  transport?: unknown;
  claimId?: unknown;
  stackId?: unknown;
  generationId?: unknown;
  project?: unknown;
}

const TCP = "tcp";
const STICKY = "sticky";

export function claimIdentity(value: unknown, parent: Parent = {}): unknown {
  if (!isObject(value)) return value;
  const out = copy(value);
  dropIf(out, "service", out.component);
  dropIf(out, "transport", parent.transport ?? TCP);
  return out;
}

/**
 * Claim: nulls out; mode absent = sticky (the protocol's default); updatedAt absent =
 * createdAt, lastUsedAt absent = updatedAt.
 */
export function claim(value: unknown, parent: Parent = {}): unknown {
  if (!isObject(value)) return value;
  const out = copy(value);
  out.identity = claimIdentity(out.identity, parent);
  dropIf(out, "mode", STICKY);
  // Inside an inventory entry, assignedPort absent = the entry's port (a null is written).
  if (parent.port !== undefined) dropIf(out, "assignedPort", parent.port);
  else dropNulls(out, ["assignedPort"]);
  dropNulls(out, ["preferredPort", "exactPort", "assignmentExpiresAt"]);
  dropIf(out, "lastUsedAt", out.updatedAt);
  dropIf(out, "updatedAt", out.createdAt);
  return out;
}

export function listener(value: unknown, processes: Processes, parent: Parent = {}): unknown {
  if (!isObject(value)) return value;
  const out = copy(value);
  if (isObject(out.process) && out.process.pid === out.pid && processes.fold(out.process)) {
    // command absent = the process's command; lineage absent = [pid] (the listener itself).
    dropIf(out, "command", out.process.command);
    delete out.process;
  }
  if (isObject(out.ownership)) {
    const ownership = copy(out.ownership);
    dropIf(ownership, "lineage", [out.pid]);
    dropIf(ownership, "reason", "verified");
    out.ownership = ownership;
  }
  // A development server usually listens on loopback only.
  if (parent.port !== undefined) dropIf(out, "names", [`127.0.0.1:${parent.port}`]);
  dropIf(out, "port", parent.port);
  return out;
}

/**
 * Run: nulls out; claimId/port absent = the enclosing entry's; rootFingerprint absent =
 * processes[rootPid]; confirmedListenerFingerprints become `confirmedListeners` [{pid,
 * observedAt (absent = confirmedAt)}] when every fingerprint folds.
 */
export function run(value: unknown, processes: Processes, parent: Parent = {}): unknown {
  if (!isObject(value)) return value;
  const out = copy(value);
  dropIf(out, "claimId", parent.claimId);
  dropIf(out, "port", parent.port);
  const root = out.rootFingerprint;
  if (isObject(root) && root.pid === out.rootPid && processes.fold(root)) {
    delete out.rootFingerprint;
  }
  const confirmed = out.confirmedListenerFingerprints;
  if (
    Array.isArray(confirmed) && confirmed.every(foldableObservation) &&
    confirmed.every((seen) => processes.fold(seen.fingerprint))
  ) {
    delete out.confirmedListenerFingerprints;
    out.confirmedListeners = confirmed.map((seen) => {
      const entry: Json = { pid: (seen.fingerprint as Json).pid };
      if (!same(seen.observedAt, out.confirmedAt)) entry.observedAt = seen.observedAt;
      return entry;
    });
    // The usual case, the root process itself listening, is left out altogether.
    dropIf(out, "confirmedListeners", [{ pid: out.rootPid }]);
  }
  dropIf(out, "bindingKind", "process");
  dropNulls(out, [
    "leaseId",
    "rootPid",
    "rootFingerprint",
    "containerId",
    "providerEvidence",
    "confirmedAt",
    "releasedAt",
  ]);
  return out;
}

function foldableObservation(seen: unknown): seen is Json {
  return isObject(seen) &&
    Object.keys(seen).every((k) => k === "fingerprint" || k === "observedAt") &&
    isObject(seen.fingerprint) && typeof seen.fingerprint.pid === "number" &&
    Object.hasOwn(seen, "observedAt");
}

/** Lease inside an inventory entry: nulls out; claimId/port absent = the entry's. */
export function lease(value: unknown, parent: Parent = {}): unknown {
  if (!isObject(value)) return value;
  const out = copy(value);
  dropIf(out, "claimId", parent.claimId);
  dropIf(out, "port", parent.port);
  return out;
}

/** Inventory entry (ports_list item, port_inspect, previews' evidence). */
export function inventoryEntry(value: unknown, processes: Processes): unknown {
  if (!isObject(value)) return value;
  const out = copy(value);
  const parent: Parent = {
    port: out.port,
    transport: out.transport,
    claimId: isObject(out.claim) ? out.claim.id : undefined,
  };
  if (out.claim) out.claim = claim(out.claim, parent);
  if (out.lease) out.lease = lease(out.lease, parent);
  if (out.run) out.run = run(out.run, processes, parent);
  if (Array.isArray(out.listeners)) {
    out.listeners = out.listeners.map((l) => listener(l, processes, parent));
  }
  dropIf(out, "transport", TCP);
  dropNulls(out, ["claim", "lease", "run", "docker"]);
  dropEmpty(out, ["listeners"]);
  return out;
}

// ── Stacks ────────────────────────────────────────────────────────────────────────────────
const ENDPOINT_DEFAULTS: Json = { transport: TCP, publish: true, required: true };

/**
 * A normalised stack definition: version 1, endpoint transport "tcp", publish and required
 * true, a dependency's required true and empty `dependencies` are the daemon's defaults and
 * are left out; `project` absent = the stack's project.
 */
export function definition(value: unknown, parent: Parent = {}): unknown {
  if (!isObject(value) || !isObject(value.components)) return value;
  const out = copy(value);
  dropIf(out, "version", 1);
  dropIf(out, "project", parent.project);
  out.components = Object.fromEntries(
    Object.entries(value.components).map(([name, component]) => {
      if (!isObject(component)) return [name, component];
      const c = copy(component);
      if (isObject(c.endpoints)) {
        c.endpoints = Object.fromEntries(
          Object.entries(c.endpoints).map(([key, endpoint]) => {
            if (!isObject(endpoint)) return [key, endpoint];
            const e = copy(endpoint);
            for (const [field, implied] of Object.entries(ENDPOINT_DEFAULTS)) {
              dropIf(e, field, implied);
            }
            return [key, e];
          }),
        );
      }
      if (isObject(c.dependencies)) {
        if (Object.keys(c.dependencies).length === 0) delete c.dependencies;
        else {
          c.dependencies = Object.fromEntries(
            Object.entries(c.dependencies).map(([alias, dependency]) => {
              if (!isObject(dependency)) return [alias, dependency];
              const d = copy(dependency);
              dropIf(d, "required", true);
              return [alias, d];
            }),
          );
        }
      }
      return [name, c];
    }),
  );
  return out;
}

/** Stack: definition compacted; updatedAt absent = createdAt; lastUsedAt absent = updatedAt. */
export function stack(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out = copy(value);
  out.definition = definition(out.definition, { project: out.project });
  dropIf(out, "lastUsedAt", out.updatedAt);
  dropIf(out, "updatedAt", out.createdAt);
  return out;
}

/** Generation: invalidatedAt null out; stackId absent = the enclosing stack's. */
export function generation(value: unknown, parent: Parent = {}): unknown {
  if (!isObject(value)) return value;
  const out = copy(value);
  dropIf(out, "stackId", parent.stackId);
  dropNulls(out, ["invalidatedAt"]);
  if (Array.isArray(out.endpoints)) {
    out.endpoints = out.endpoints.map((endpoint) => {
      if (!isObject(endpoint)) return endpoint;
      const e = copy(endpoint);
      dropIf(e, "transport", TCP);
      dropIf(e, "host", "127.0.0.1");
      dropIf(e, "required", true);
      return e;
    });
  }
  return out;
}

/**
 * The latest of an activation's createdAt, confirmedAt and endedAt: what its updatedAt is
 * unless something else changed since (an endpoint's state, say).
 */
export function latestChange(record: Json): unknown {
  let latest: unknown = undefined;
  for (const field of ["createdAt", "confirmedAt", "endedAt"]) {
    const at = record[field];
    if (typeof at !== "string" || Number.isNaN(Date.parse(at))) continue;
    if (typeof latest !== "string" || Date.parse(at) > Date.parse(latest)) latest = at;
  }
  return latest;
}

/**
 * Activation: nulls out; updatedAt absent = its latest change (createdAt, confirmedAt,
 * endedAt); stackId/generationId absent = the enclosing ones; an endpoint's updatedAt
 * absent = the activation's updatedAt.
 */
export function activation(value: unknown, parent: Parent = {}): unknown {
  if (!isObject(value)) return value;
  const out = copy(value);
  dropIf(out, "stackId", parent.stackId);
  dropIf(out, "generationId", parent.generationId);
  if (Array.isArray(out.endpoints)) {
    let previousExpiry: unknown = null;
    out.endpoints = out.endpoints.map((endpoint) => {
      if (!isObject(endpoint)) return endpoint;
      const e = copy(endpoint);
      dropNulls(e, ["leaseId", "runId", "failureReason"]);
      // expiresAt absent = the previous endpoint's (null for the first).
      dropIf(e, "expiresAt", previousExpiry);
      previousExpiry = endpoint.expiresAt;
      dropIf(e, "updatedAt", out.updatedAt);
      dropIf(e, "required", true);
      dropIf(e, "bindingKind", "process");
      return e;
    });
  }
  dropIf(out, "updatedAt", latestChange(out));
  dropNulls(out, ["confirmedAt", "endedAt"]);
  return out;
}

/** Provider evidence: an active process provider's reason is usually that it is verified. */
export function provider(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out = copy(value);
  dropNulls(out, ["runId", "containerId"]);
  if (out.status === "active" && out.bindingKind === "process") {
    dropIf(out, "reason", "process-ownership-verified");
  }
  dropIf(out, "bindingKind", "process");
  return out;
}

const endpointKey = (record: Json) => `${record.component}.${record.endpoint}`;
const byEndpoint = (records: unknown): Map<string, Json> =>
  new Map(
    (Array.isArray(records) ? records : []).filter(isObject).map((r) => [endpointKey(r), r]),
  );

/** Stack status: its generation and activation do not repeat the stack's and generation's ids. */
export function stackStatus(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out = copy(value);
  const stackId = isObject(out.stack) ? out.stack.id : undefined;
  const generationId = isObject(out.generation) ? out.generation.id : undefined;
  const published = byEndpoint(isObject(out.generation) ? out.generation.endpoints : undefined);
  const activated = byEndpoint(isObject(out.activation) ? out.activation.endpoints : undefined);
  if (out.stack) out.stack = stack(out.stack);
  if (isObject(out.generation)) {
    const compact = generation(out.generation, { stackId }) as Json;
    // The generation's revision is usually the stack's current one.
    if (isObject(out.stack)) dropIf(compact, "revision", out.stack.currentRevision);
    out.generation = compact;
  }
  if (isObject(out.activation)) {
    const compact = activation(out.activation, { stackId, generationId }) as Json;
    // An activation endpoint's claimId is its generation endpoint's (ports stay everywhere).
    if (Array.isArray(compact.endpoints)) {
      compact.endpoints = compact.endpoints.map((e: Json) => {
        const own = published.get(endpointKey(e));
        const out = copy(e);
        dropIf(out, "claimId", own?.claimId);
        return out;
      });
    }
    out.activation = compact;
  }
  if (Array.isArray(out.providers)) {
    // A provider's runId is its activation endpoint's.
    out.providers = out.providers.map((p) => {
      const compact = provider(p);
      if (!isObject(compact)) return compact;
      const own = activated.get(endpointKey(compact));
      dropIf(compact, "runId", own?.runId);
      return compact;
    });
  }
  dropNulls(out, ["generation", "activation"]);
  dropEmpty(out, ["providers"]);
  return out;
}

/** Own addresses of a resolution/snapshot: component absent = the result's; endpoint = key. */
export function addresses(value: unknown, component: unknown): unknown {
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, entry]) => {
      if (!isObject(entry)) return [key, entry];
      const e = copy(entry);
      dropIf(e, "component", component);
      dropIf(e, "endpoint", key);
      dropNulls(e, ["dockerNetwork"]);
      return [key, e];
    }),
  );
}

// ── Launcher operations and history ──────────────────────────────────────────────────────
const LAUNCHER_NULLABLE = [
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
];

/**
 * Launcher operation: nulls out; degraded false and executionMode "finite" out; renewedAt
 * absent = startedAt.
 */
export function launcherOperation(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out = copy(value);
  dropNulls(out, LAUNCHER_NULLABLE);
  dropIf(out, "degraded", false);
  dropIf(out, "executionMode", "finite");
  dropIf(out, "renewedAt", out.startedAt);
  return out;
}

/** `stack.activation.ended` → `stack-activation`: what entityType usually is. */
export function impliedEntityType(eventType: unknown): string | undefined {
  if (typeof eventType !== "string" || !eventType.includes(".")) return undefined;
  return eventType.slice(0, eventType.lastIndexOf(".")).replaceAll(".", "-");
}

/**
 * History event: entityType absent = implied by eventType; origin absent = the previous
 * event's on the page (null for the first); payload absent = {}; a launcher
 * operation payload whose id is the entity becomes `operation` (compact, without id); a
 * claim event's identity and claim are compact (claim.id = entityId), and claim.created's
 * preferredPort/exactPort absent = null.
 */
export function historyEvent(value: unknown, previous: Json): unknown {
  if (!isObject(value)) return value;
  const out = copy(value);
  const implied = impliedEntityType(out.eventType);
  dropIf(out, "entityType", implied);
  dropIf(out, "origin", previous.origin ?? null);
  dropIf(out, "payload", {});
  const payload = out.payload;
  if (out.entityType !== undefined || !isObject(payload)) return out;
  if (implied === "launcher-operation" && payload.id === out.entityId) {
    const { id: _id, ...operation } = launcherOperation(payload) as Json;
    delete out.payload;
    out.operation = operation;
  } else if (implied === "claim") {
    const p = copy(payload);
    if (isObject(p.identity)) p.identity = claimIdentity(p.identity);
    if (isObject(p.claim)) {
      const claimed = claim(p.claim) as Json;
      dropIf(claimed, "id", out.entityId);
      p.claim = claimed;
    }
    if (out.eventType === "claim.created") {
      dropNulls(p, ["preferredPort", "exactPort"]);
      dropIf(p, "mode", STICKY);
    }
    out.payload = p;
  }
  return out;
}

export function historyEvents(items: readonly unknown[]): unknown[] {
  let previous: Json = {};
  return items.map((item) => {
    const out = historyEvent(item, previous);
    if (isObject(item)) previous = item;
    return out;
  });
}
