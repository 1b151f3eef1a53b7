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

export interface HeldActivationLease {
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

export interface Extension extends CustodyTimes {
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
