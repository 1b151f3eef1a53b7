/**
 * What custody holds and hands out: the public types (credentials held, their uses and
 * warnings, the renewers custody calls, its options and events), the in-memory record of held
 * credentials, its read-only views and its input checks.
 */
import type { Clock } from "./clock.ts";
import type { RandomFill } from "./handle.ts";
import type { CredentialFragments } from "./fragments.ts";

export type CredentialKind = "lease" | "activation" | "launcher";

/** A renewal that failed, as remembered by custody. Never contains a secret. */
export interface RenewalFailure {
  readonly code: string;
  readonly message: string;
  /** Epoch milliseconds of the failed attempt. */
  readonly at: number;
}

/** What the daemon's launcher renew route yields; the catalogue may return more (e.g. `operation`). */
export interface LauncherRenewal {
  deadlineAt: number;
  renewAfterMilliseconds: number;
}

/**
 * Daemon calls custody makes on its own. A rejection may carry `code` (string) and `retryable`
 * (boolean); without them it counts as `portreeve_internal`, not retryable.
 */
export interface Renewers<R extends LauncherRenewal = LauncherRenewal> {
  /** `dueAt`: when the credential expires, so the most urgent renewal can be sent first. */
  renewLease(
    leaseId: string,
    token: string,
    signal: AbortSignal,
    dueAt: number,
  ): Promise<{ expiresAt: number }>;
  renewActivation(
    activationId: string,
    leases: { leaseId: string; token: string }[],
    signal: AbortSignal,
    dueAt: number,
  ): Promise<{ leases: { leaseId: string; expiresAt: number }[] }>;
  renewLauncher(
    operationId: string,
    credential: string,
    signal: AbortSignal,
    dueAt: number,
  ): Promise<R>;
}

export type ErasedReason =
  | "settled"
  | "custody-expired"
  | "lease-expired"
  | "deadline-passed"
  | "renewal-failed";

/** Observations for logging. Carries ids and codes only: no secrets, no handles. */
export type CustodyEvent =
  | {
    type: "renewed";
    kind: CredentialKind;
    id: string;
    credentialCount: number;
    expiresAt: number;
  }
  | {
    type: "renewal-failed";
    kind: CredentialKind;
    id: string;
    retryable: boolean;
    failure: RenewalFailure;
  }
  /** A renewal is still unanswered halfway to the expiry: the credential is at risk. */
  | { type: "renewal-late"; kind: CredentialKind; id: string; failure: RenewalFailure }
  | {
    type: "erased";
    kind: CredentialKind;
    id: string;
    credentialCount: number;
    reason: ErasedReason;
  };

export interface CustodyOptions<R extends LauncherRenewal = LauncherRenewal> {
  renewers: Renewers<R>;
  clock?: Clock;
  /** Custody length from acquisition before any extension (default 10 min). */
  defaultCustodyMs?: number;
  /** Hard ceiling from acquisition (default 60 min). */
  maximumCustodyMs?: number;
  /**
   * How long past the credential's expiry an unanswered renewal is still awaited (its answer
   * may be on the way), before it is aborted and the credential erased (default 2 s).
   */
  answerGraceMs?: number;
  /** How long the daemon takes to answer lately (ms), to send renewals early enough. */
  daemonDelayMs?: () => number;
  /** Bound on remembered terminal renewal failures (default 256). */
  maxTombstones?: number;
  onEvent?: (event: CustodyEvent) => void;
  /**
   * Where the vault records keyed hashes of its secrets' fragments, so output can be scrubbed
   * of them even after erasure (one per process; a fresh one when unset).
   */
  fragments?: CredentialFragments;
  /** Test seam for handle generation; defaults to crypto.getRandomValues. */
  randomFill?: RandomFill;
}

interface CustodyTimes {
  custodyExpiresAt: number;
  maximumCustodyExpiresAt: number;
}

export interface HeldLease extends CustodyTimes {
  handle: string;
  leaseId: string;
  expiresAt: number;
}

interface HeldActivationLease {
  handle: string;
  leaseId: string;
  component: string;
  endpoint: string;
  expiresAt: number;
}

export interface HeldActivation extends CustodyTimes {
  activationId: string;
  /** Still-held leases in the order they were handed over. */
  leases: HeldActivationLease[];
  credentialCount: number;
}

export interface HeldLauncher extends CustodyTimes {
  handle: string;
  operationId: string;
  deadlineAt: number;
  renewAfterMilliseconds: number;
}

export interface LeaseUse {
  leaseId: string;
  token: string;
  /** Present when the latest background renewal failed transiently. */
  renewalFailure?: RenewalFailure;
}

export interface ActivationLeaseUse extends LeaseUse {
  component: string;
  endpoint: string;
}

export interface LauncherUse {
  credential: string;
  renewalFailure?: RenewalFailure;
}

interface Extension extends CustodyTimes {
  changed: boolean;
}

export interface ActivationExtension extends Extension {
  activationId: string;
  credentialCount: number;
}

export interface LauncherHeartbeat<R extends LauncherRenewal = LauncherRenewal>
  extends HeldLauncher {
  /** The renewer's own result (e.g. the daemon's operation record). */
  renewal: R;
  custodyChanged: boolean;
}

/** How one renewal attempt ended. */
export type Outcome<R> = { ok: true; launcher?: R } | { ok: false; error: unknown };

/** A held credential whose renewal is in trouble (it may lapse before the next success). */
export interface AtRisk {
  kind: CredentialKind;
  /** Lease, activation or launcher-operation id. */
  id: string;
  /** Its soonest lease expiry or operation deadline. */
  expiresAt: number;
  failure: RenewalFailure;
}

/** A credential erased because it could not be renewed (not settled, not custody's end). */
export interface Lapsed {
  kind: CredentialKind;
  id: string;
  failure: RenewalFailure;
}

/** What the holder must be told on its next result. */
export interface CustodyWarnings {
  atRisk: AtRisk[];
  /** Lapses since the last call of `takeWarnings` (each reported once). */
  lapsed: Lapsed[];
}

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

function first<R extends LauncherRenewal>(group: Group<R>): Entry {
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
