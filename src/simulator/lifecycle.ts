// Shared state transitions: lease expiry sweeps, activation state recomputation, run release,
// ephemeral-assignment expiry and the ownership proof behind every confirm.
import type { Ctx } from "./core.ts";
import { fail } from "./errors.ts";
import { describeListener, ownershipChain } from "./inventory.ts";
import type {
  Activation,
  ActivationState,
  Claim,
  Lease,
  ProcessFingerprint,
  Run,
} from "./state.ts";
import { identityView } from "./views.ts";
import { secretMatches, uuid } from "./util.ts";

/** Applies the activation state rule; emits state_changed when it moves. */
export function recomputeActivation(ctx: Ctx, activation: Activation): void {
  if (activation.state === "lost" || activation.state === "ended") return;
  const dead = (s: string) => s === "failed" || s === "skipped" || s === "released";
  let next: ActivationState;
  if (activation.endpoints.some((e) => e.required && dead(e.state))) {
    next = "failed";
    // A failed activation cancels every endpoint still waiting on its lease.
    for (const endpoint of activation.endpoints) {
      if (endpoint.state !== "leased") continue;
      const lease = endpoint.leaseId ? ctx.state.leases.get(endpoint.leaseId) : undefined;
      if (lease && lease.state === "pending") {
        lease.state = "abandoned";
        lease.updatedAt = ctx.at;
      }
      endpoint.state = "failed";
      endpoint.failureReason = "activation-failed";
      endpoint.updatedAt = ctx.at;
    }
  } else if (activation.endpoints.some((e) => e.state === "leased")) {
    next = "starting";
  } else if (activation.endpoints.some((e) => !e.required && dead(e.state))) {
    next = "degraded";
  } else {
    next = "confirmed";
  }
  if (next !== activation.state) {
    const from = activation.state;
    activation.state = next;
    activation.updatedAt = ctx.at;
    if ((next === "confirmed" || next === "degraded") && activation.confirmedAt === null) {
      activation.confirmedAt = ctx.at;
    }
    ctx.event("stack.activation.state_changed", "stack-activation", activation.id, {
      from,
      to: next,
    });
  }
}

/** Marks overdue pending leases expired (origin-less background events). */
export function sweepLeases(ctx: Ctx): void {
  const touched = new Set<Activation>();
  for (const lease of ctx.state.leases.values()) {
    if (lease.state !== "pending" || lease.expiresAt > ctx.lapseAt) continue;
    lease.state = "expired";
    lease.updatedAt = ctx.at;
    ctx.event(
      "lease.expired",
      "lease",
      lease.id,
      { claimId: lease.claimId, port: lease.port },
      true,
    );
    if (!lease.activationId) continue;
    const activation = ctx.state.activations.get(lease.activationId);
    const endpoint = activation?.endpoints.find((e) => e.leaseId === lease.id);
    if (activation && endpoint && endpoint.state === "leased") {
      endpoint.state = "failed";
      endpoint.failureReason = "lease-expired";
      endpoint.updatedAt = ctx.at;
      activation.updatedAt = ctx.at;
      touched.add(activation);
    }
  }
  for (const activation of touched) recomputeActivation(ctx, activation);
}

/** Clears lapsed ephemeral assignments that have no listener any more. */
export function expireEphemeralAssignments(ctx: Ctx): void {
  for (const claim of ctx.state.claims.values()) {
    if (claim.assignedPort === null || claim.assignmentExpiresAt === null) continue;
    if (claim.assignmentExpiresAt > ctx.lapseAt) continue;
    if (ctx.state.activeRunForClaim(claim.id)) continue;
    if (ctx.observe().onPort(claim.assignedPort).length > 0) continue;
    const port = claim.assignedPort;
    claim.assignedPort = null;
    claim.assignmentExpiresAt = null;
    claim.updatedAt = ctx.at;
    ctx.event("claim.ephemeral_assignment_expired", "claim", claim.id, { port }, true);
  }
}

export function releaseRun(ctx: Ctx, run: Run, payload: Record<string, unknown> = {}): void {
  run.state = "released";
  run.releasedAt = ctx.at;
  ctx.event("run.released", "run", run.id, payload);
}

/** Lease checks in the daemon's order: state, then token, then deadline. */
export function checkLease(lease: Lease, token: string, at: string): void {
  if (lease.state !== "pending") {
    throw fail.leaseNotPending(`Lease ${lease.id} is ${lease.state}, not pending.`);
  }
  if (!secretMatches(token, lease.tokenHash)) {
    throw fail.badToken("The lease token does not match this lease.");
  }
  if (lease.expiresAt <= at) {
    throw fail.leaseExpired(`Lease ${lease.id} expired at ${lease.expiresAt}.`, {
      leaseId: lease.id,
      expiresAt: lease.expiresAt,
    });
  }
}

/**
 * Proves that every listener on `port` belongs to the process tree rooted at `rootPid`
 * and that there is at least one (the listener evidence comes first, then the root's own
 * fingerprint). Returns the fingerprints a run records.
 */
export function proveOwnership(ctx: Ctx, port: number, rootPid: number): {
  root: ProcessFingerprint;
  listeners: ProcessFingerprint[];
} {
  const obs = ctx.reobserve();
  const raw = obs.onPort(port);
  const owned = raw.map((l) => ownershipChain(obs, l.pid, rootPid) !== null);
  if (raw.length === 0 || owned.includes(false)) {
    const probe: Run = {
      id: uuid(),
      claimId: "",
      leaseId: "",
      port,
      state: "confirmed",
      bindingKind: "process",
      rootPid,
      rootFingerprint: null,
      containerId: null,
      providerEvidence: null,
      confirmedAt: ctx.at,
      releasedAt: null,
      confirmedListenerFingerprints: [],
      activationId: null,
    };
    const listeners = raw.map((l) => describeListener(obs, l, probe));
    throw fail.conflict(
      raw.length === 0
        ? `Nothing is listening on port ${port} yet.`
        : `Some listeners on port ${port} are outside process ${rootPid}'s tree.`,
      { port, rootPid, listeners, ownership: listeners.map((l) => l.ownership) },
    );
  }
  const root = obs.process(rootPid);
  if (!root) {
    throw fail.conflict(`Process ${rootPid} cannot be observed.`, { port, rootPid });
  }
  const fingerprints = raw.map((l) => obs.process(l.pid)).filter((p): p is ProcessFingerprint =>
    p !== null
  );
  return { root, listeners: fingerprints };
}

function newRun(
  ctx: Ctx,
  lease: Lease,
  rootPid: number,
  proof: { root: ProcessFingerprint; listeners: ProcessFingerprint[] },
): Run {
  const run: Run = {
    id: uuid(),
    claimId: lease.claimId,
    leaseId: lease.id,
    port: lease.port,
    state: "confirmed",
    bindingKind: "process",
    rootPid,
    rootFingerprint: proof.root,
    containerId: null,
    providerEvidence: null,
    confirmedAt: ctx.at,
    releasedAt: null,
    confirmedListenerFingerprints: dedupe(proof.listeners).map((fingerprint) => ({
      fingerprint,
      observedAt: ctx.at,
    })),
    activationId: lease.activationId,
  };
  ctx.state.runs.set(run.id, run);
  return run;
}

function dedupe(list: ProcessFingerprint[]): ProcessFingerprint[] {
  const seen = new Set<number>();
  return list.filter((p) => !seen.has(p.pid) && seen.add(p.pid) !== undefined);
}

/**
 * Confirms `lease` as a run owned by `rootPid` (whose ownership `proof` shows): the run is
 * recorded, the lease and its claim (if it still exists) updated, `lease.confirmed` logged with
 * `extra` added. Standalone and activation leases alike.
 */
export function confirmLease(
  ctx: Ctx,
  lease: Lease,
  rootPid: number,
  proof: { root: ProcessFingerprint; listeners: ProcessFingerprint[] },
  extra: Record<string, unknown> = {},
): { run: Run; claim: Claim | undefined } {
  const run = newRun(ctx, lease, rootPid, proof);
  lease.state = "confirmed";
  lease.updatedAt = ctx.at;
  const claim = ctx.state.claims.get(lease.claimId);
  if (claim) {
    claim.assignedPort = lease.port;
    claim.updatedAt = ctx.at;
    claim.lastUsedAt = ctx.at;
  }
  ctx.event("lease.confirmed", "lease", lease.id, {
    runId: run.id,
    claimId: lease.claimId,
    port: lease.port,
    rootPid,
    ...extra,
  });
  return { run, claim };
}

/** What a new claim is made of: its identity and how it is allocated. */
type NewClaim = Pick<
  Claim,
  "project" | "workspaceRoot" | "component" | "endpoint" | "mode" | "preferredPort" | "exactPort"
>;

/** Stores a new claim (no port yet) and logs `claim.created` with `extra` added. */
export function createClaim(ctx: Ctx, fields: NewClaim, extra: Record<string, unknown> = {}) {
  const claim: Claim = {
    id: uuid(),
    ...fields,
    assignedPort: null,
    assignmentExpiresAt: null,
    createdAt: ctx.at,
    updatedAt: ctx.at,
    lastUsedAt: ctx.at,
  };
  ctx.state.claims.set(claim.id, claim);
  ctx.event("claim.created", "claim", claim.id, {
    identity: identityView(claim),
    mode: claim.mode,
    preferredPort: claim.preferredPort,
    exactPort: claim.exactPort,
    ...extra,
  });
  return claim;
}
