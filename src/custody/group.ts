/** The in-memory record of held credentials, its read-only views and input checks. */
import type {
  CredentialKind,
  HeldActivation,
  HeldLauncher,
  HeldLease,
  LauncherRenewal,
  Outcome,
  RenewalFailure,
} from "./types.ts";

/** One held credential. For a launcher record `leaseId` is the operation id. */
export interface Entry {
  readonly handle: string;
  readonly leaseId: string;
  secret: string;
  /** Lease expiry, or the launcher operation deadline. */
  expiresAt: number;
  readonly component: string;
  readonly endpoint: string;
}

/** Unit of custody and renewal: a standalone lease, an activation, or a launcher operation. */
export interface Group<R extends LauncherRenewal> {
  readonly kind: CredentialKind;
  readonly id: string;
  readonly entries: Map<string, Entry>;
  readonly acquiredAt: number;
  custodyExpiresAt: number;
  readonly maximumCustodyExpiresAt: number;
  /** Daemon's requested launcher cadence; Infinity for leases. */
  renewAfterMs: number;
  /** The TTL (or launcher deadline span) the daemon granted last, as seen on its answer. */
  ttlMs: number;
  /**
   * Latest transient renewal failure (or a renewal still unanswered when it became late),
   * cleared by the next success. While set, the credential is at risk.
   */
  failure?: RenewalFailure;
  renewTimer?: number;
  expiryTimer?: number;
  /** Fires when the renewal in flight becomes late. */
  lateTimer?: number;
  inflight?: Promise<Outcome<R>>;
  controller?: AbortController;
}

/** A credential as handed over, before it gets a handle. */
export interface NewEntry {
  leaseId: string;
  secret: string;
  expiresAt: number;
  component: string;
  endpoint: string;
}

export function keyOf(kind: CredentialKind, id: string): string {
  return `${kind}:${id}`;
}

export function leaseView<R extends LauncherRenewal>(group: Group<R>): HeldLease {
  const entry = first(group);
  return { handle: entry.handle, leaseId: group.id, expiresAt: entry.expiresAt, ...times(group) };
}

export function activationView<R extends LauncherRenewal>(group: Group<R>): HeldActivation {
  const leases = [...group.entries.values()].map((e) => ({
    handle: e.handle,
    leaseId: e.leaseId,
    component: e.component,
    endpoint: e.endpoint,
    expiresAt: e.expiresAt,
  }));
  return { activationId: group.id, leases, ...times(group), credentialCount: leases.length };
}

export function launcherView<R extends LauncherRenewal>(group: Group<R>): HeldLauncher {
  const entry = first(group);
  return {
    handle: entry.handle,
    operationId: group.id,
    deadlineAt: entry.expiresAt,
    renewAfterMilliseconds: group.renewAfterMs,
    ...times(group),
  };
}

export function times(
  group: { custodyExpiresAt: number; maximumCustodyExpiresAt: number },
): { custodyExpiresAt: number; maximumCustodyExpiresAt: number } {
  return {
    custodyExpiresAt: group.custodyExpiresAt,
    maximumCustodyExpiresAt: group.maximumCustodyExpiresAt,
  };
}

export function first<R extends LauncherRenewal>(group: Group<R>): Entry {
  return group.entries.values().next().value!;
}

export function soonestExpiry<R extends LauncherRenewal>(group: Group<R>): number {
  let soonest = Infinity;
  for (const entry of group.entries.values()) soonest = Math.min(soonest, entry.expiresAt);
  return soonest;
}

export function withFailure<T extends object>(use: T, failure?: RenewalFailure): T & {
  renewalFailure?: RenewalFailure;
} {
  return failure ? { ...use, renewalFailure: { ...failure } } : use;
}

export function requireId(name: string, value: unknown): asserts value is string {
  if (typeof value !== "string" || value === "") {
    throw new TypeError(`custody: ${name} must be a non-empty string`);
  }
}

export function requireTime(name: string, value: unknown): asserts value is number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new TypeError(`custody: ${name} must be a finite number`);
  }
}

/** Validates one credential; messages name the field, never the value. */
export function checkedEntry(
  leaseId: string,
  secret: unknown,
  expiresAt: unknown,
  component: unknown,
  endpoint: unknown,
): NewEntry {
  if (typeof secret !== "string" || secret === "") {
    throw new TypeError("custody: the secret must be a non-empty string");
  }
  requireTime("expiresAt", expiresAt);
  if (typeof component !== "string" || typeof endpoint !== "string") {
    throw new TypeError("custody: component and endpoint must be strings");
  }
  return { leaseId, secret, expiresAt, component, endpoint };
}
