// Port inventory: joins claims, live leases, confirmed runs and listener evidence, then
// classifies each port the way the daemon's reconciliation does.
import type { Ctx } from "./core.ts";
import { listenerName, type Observation, type RawListener } from "./evidence.ts";
import type { Claim, Lease, Run } from "./state.ts";
import { claimView, runView } from "./views.ts";

export interface ListenerEvidence {
  pid: number;
  port: number;
  command: string | null;
  names: string[];
  process: Record<string, unknown> | null;
  ownership: { verified: boolean; reason: string; lineage: number[] };
}

/** Whether `pid` descends from (or is) `rootPid`; returns the chain up to the root. */
export function ownershipChain(obs: Observation, pid: number, rootPid: number): number[] | null {
  const lineage = obs.lineage(pid);
  const index = lineage.indexOf(rootPid);
  return index === -1 ? null : lineage.slice(0, index + 1);
}

/** Listener evidence for one port, with ownership judged against a confirmed run. */
export function listenerEvidence(
  obs: Observation,
  port: number,
  run: Run | null,
): ListenerEvidence[] {
  return obs.onPort(port).map((l) => describeListener(obs, l, run));
}

export function describeListener(
  obs: Observation,
  l: RawListener,
  run: Run | null,
): ListenerEvidence {
  const process = obs.process(l.pid);
  let ownership: ListenerEvidence["ownership"];
  if (!process) {
    ownership = { verified: false, reason: "process-unobservable", lineage: [] };
  } else if (!run || run.bindingKind !== "process" || run.rootPid === null) {
    ownership = { verified: false, reason: "no-confirmed-run-evidence", lineage: [] };
  } else {
    const chain = ownershipChain(obs, l.pid, run.rootPid);
    ownership = chain
      ? { verified: true, reason: "verified", lineage: chain }
      : { verified: false, reason: "not-in-run-lineage", lineage: obs.lineage(l.pid) };
  }
  return {
    pid: l.pid,
    port: l.port,
    command: process?.command ?? null,
    names: [listenerName(l)],
    process: process ? { ...process } : null,
    ownership,
  };
}

interface PortFacts {
  port: number;
  claim: Claim | null;
  lease: Lease | null;
  run: Run | null;
  listeners: ListenerEvidence[];
}

function portFacts(ctx: Ctx, port: number): PortFacts {
  const state = ctx.state;
  const lease = state.livePendingLeaseOnPort(port, ctx.lapseAt) ?? null;
  const run = state.activeRunOnPort(port) ?? null;
  const claimId = lease?.claimId ?? run?.claimId;
  const claim = (claimId ? state.claims.get(claimId) : undefined) ??
    state.claimAssignedTo(port, ctx.lapseAt) ?? null;
  return { port, claim, lease, run, listeners: listenerEvidence(ctx.observe(), port, run) };
}

function classify(f: PortFacts): string {
  if (f.lease) return "pending";
  if (f.run) {
    if (f.listeners.length === 0) return "conflicting";
    const verified = f.listeners.filter((l) => l.ownership.verified).length;
    if (verified === f.listeners.length) return "verified";
    return verified > 0 ? "mixed" : "conflicting";
  }
  if (f.claim) return f.listeners.length > 0 ? "conflicting" : "idle";
  return f.listeners.length > 0 ? "unclaimed" : "available";
}

export function inventoryEntry(ctx: Ctx, port: number): Record<string, unknown> {
  const f = portFacts(ctx, port);
  return {
    port,
    transport: "tcp",
    classification: classify(f),
    claim: f.claim ? claimView(f.claim) : null,
    lease: f.lease
      ? {
        id: f.lease.id,
        claimId: f.lease.claimId,
        port: f.lease.port,
        state: f.lease.state,
        expiresAt: f.lease.expiresAt,
      }
      : null,
    run: f.run ? runView(f.run) : null,
    docker: null,
    listeners: f.listeners,
  };
}

/** Every port with a listener, an assignment, a live pending lease or a confirmed run. */
export function knownPorts(ctx: Ctx): number[] {
  const ports = new Set<number>(ctx.observe().listeningPorts());
  for (const claim of ctx.state.claims.values()) {
    if (claim.assignedPort !== null && ctx.state.claimAssignedTo(claim.assignedPort, ctx.lapseAt)) {
      ports.add(claim.assignedPort);
    }
  }
  for (const lease of ctx.state.leases.values()) {
    if (lease.state === "pending" && lease.expiresAt > ctx.lapseAt) ports.add(lease.port);
  }
  for (const run of ctx.state.runs.values()) if (run.state === "confirmed") ports.add(run.port);
  return [...ports].sort((a, b) => a - b);
}
