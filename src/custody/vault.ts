/**
 * The vault custody's users see (`Custody`; mod.ts states its contract): what is handed over is
 * checked, and its secret learnt, before anything can fail; what comes back is a view without
 * secrets; a handle is used only as what it was bound to. The credentials themselves are held
 * in holdings.ts, kept alive by upkeep.ts, and remembered once lapsed by tombstones.ts.
 */
import { type Clock, realClock } from "./clock.ts";
import { MINUTE_MS } from "./cadence.ts";
import {
  CredentialUnavailableError,
  CustodyClosedError,
  CustodyError,
  CustodyLimitError,
  describeFailure,
  RenewalFailedError,
  safeDetails,
} from "./errors.ts";
import { cryptoFill } from "./handle.ts";
import { CredentialFragments } from "./fragments.ts";
import {
  activationView,
  checkedEntry,
  type Group,
  launcherView,
  leaseView,
  type NewEntry,
  requireId,
  requireTime,
  soonestExpiry,
  times,
  withFailure,
} from "./group.ts";
import { Holdings } from "./holdings.ts";
import { Tombstones } from "./tombstones.ts";
import { Upkeep } from "./upkeep.ts";
import type {
  ActivationExtension,
  ActivationLeaseUse,
  AtRisk,
  CredentialKind,
  CustodyOptions,
  CustodyWarnings,
  HeldActivation,
  HeldLauncher,
  HeldLease,
  LauncherHeartbeat,
  LauncherRenewal,
  LauncherUse,
  LeaseUse,
} from "./group.ts";

/** A lease the daemon granted, as custody is handed it. */
type NewLease = { leaseId: string; token: string; expiresAt: number };

/** One of an activation's leases, as custody is handed it. */
type NewActivationLease = NewLease & { component: string; endpoint: string };

/** Process-local vault of daemon secrets behind opaque handles. See mod.ts for the contract. */
export class Custody<R extends LauncherRenewal = LauncherRenewal> {
  readonly #clock: Clock;
  readonly #defaultMs: number;
  readonly #maximumMs: number;
  readonly #fragments: CredentialFragments;
  readonly #tombstones: Tombstones;
  readonly #holdings: Holdings<R>;
  readonly #upkeep: Upkeep<R>;

  constructor(options: CustodyOptions<R>) {
    this.#clock = options.clock ?? realClock;
    this.#defaultMs = options.defaultCustodyMs ?? 10 * MINUTE_MS;
    this.#maximumMs = options.maximumCustodyMs ?? 60 * MINUTE_MS;
    const graceMs = options.answerGraceMs ?? 2_000;
    this.#fragments = options.fragments ?? new CredentialFragments();
    if (!(this.#defaultMs > 0 && this.#defaultMs <= this.#maximumMs)) {
      throw new RangeError("custody: need 0 < defaultCustodyMs <= maximumCustodyMs");
    }
    if (!(graceMs >= 0)) throw new RangeError("custody: answerGraceMs must be >= 0");
    const clock = this.#clock;
    const tombstones = this.#tombstones = new Tombstones(options.maxTombstones ?? 256);
    const holdings = this.#holdings = new Holdings<R>({
      clock,
      defaultMs: this.#defaultMs,
      maximumMs: this.#maximumMs,
      fill: options.randomFill ?? cryptoFill,
      tombstones,
      onEvent: options.onEvent,
    });
    this.#upkeep = new Upkeep<R>({
      clock,
      renewers: options.renewers,
      graceMs,
      daemonDelayMs: options.daemonDelayMs ?? (() => 0),
      holdings,
      tombstones,
    });
  }

  /** Number of credentials currently held. */
  get size(): number {
    return this.#holdings.size;
  }

  get closed(): boolean {
    return this.#holdings.closed;
  }

  // ---- holding ----------------------------------------------------------------------------

  holdLease(lease: NewLease): HeldLease {
    return leaseView(this.#holdLease(lease));
  }

  holdActivation(activationId: string, leases: readonly NewActivationLease[]): HeldActivation {
    return activationView(this.#holdActivation(activationId, leases));
  }

  holdLauncher(operation: {
    operationId: string;
    credential: string;
    deadlineAt: number;
    renewAfterMilliseconds: number;
  }): HeldLauncher {
    const { operationId, credential, deadlineAt, renewAfterMilliseconds } = operation;
    this.#recognise(credential);
    requireId("operationId", operationId);
    requireTime("renewAfterMilliseconds", renewAfterMilliseconds);
    const entry = checkedEntry(operationId, credential, deadlineAt, "", "");
    return launcherView(
      this.#hold("launcher", operationId, [entry], renewAfterMilliseconds),
    );
  }

  // ---- admitting: what the daemon just granted, judged as it arrives ------------------------

  /** The time on custody's clock (what `admit*`'s `sentAt` is measured in). */
  now(): number {
    return this.#clock.now();
  }

  /**
   * Holds a lease the daemon has just granted, unless it is dead or about to be (mod.ts,
   * "Arrival"). `sentAt`: when the acquire went out, which bounds the TTL the daemon granted.
   * Rejects with `LeaseLapsedError` (retryable) when it lapsed; nothing is then held.
   */
  async admitLease(lease: NewLease, sentAt: number): Promise<HeldLease> {
    return leaseView(await this.#upkeep.judge(this.#holdLease(lease), sentAt));
  }

  /** `admitLease` for an activation's leases, judged by the soonest to expire. */
  async admitActivation(
    activationId: string,
    leases: readonly NewActivationLease[],
    sentAt: number,
  ): Promise<HeldActivation> {
    const group = this.#holdActivation(activationId, leases);
    return activationView(await this.#upkeep.judge(group, sentAt));
  }

  // ---- using ------------------------------------------------------------------------------

  useLease(handle: string): LeaseUse {
    const { group, entry } = this.#lookup("lease", handle);
    return withFailure({ leaseId: entry.leaseId, token: entry.secret }, group.failure);
  }

  useActivationLease(activationId: string, handle: string): ActivationLeaseUse {
    const { group, entry } = this.#lookup("activation", handle, activationId);
    const { leaseId, secret: token, component, endpoint } = entry;
    return withFailure({ leaseId, token, component, endpoint }, group.failure);
  }

  useLauncher(operationId: string, handle: string): LauncherUse {
    const { group, entry } = this.#lookup("launcher", handle, operationId);
    return withFailure({ credential: entry.secret }, group.failure);
  }

  // ---- replay lookups (current state of what is still held) --------------------------------

  heldLease(leaseId: string): HeldLease | undefined {
    const group = this.#current("lease", leaseId);
    return group && leaseView(group);
  }

  heldActivation(activationId: string): HeldActivation | undefined {
    const group = this.#current("activation", activationId);
    return group && activationView(group);
  }

  heldLauncher(operationId: string): HeldLauncher | undefined {
    const group = this.#current("launcher", operationId);
    return group && launcherView(group);
  }

  // ---- settling: call after the daemon accepted confirm/skip/abandon/complete ---------------

  /** Erases a standalone lease credential. Returns whether anything was held. */
  settleLease(handle: string): boolean {
    const group = this.#holdings.byHandle(handle);
    this.#tombstones.forget(handle);
    if (!group || group.kind !== "lease") return false;
    this.#holdings.erase(group, "settled");
    return true;
  }

  /**
   * Erases every credential of the activation whose lease is not in `stillLeased` (the
   * lease ids of endpoints the daemon still reports as `leased`). Returns how many went.
   */
  settleActivationLeases(activationId: string, stillLeased: ReadonlySet<string>): number {
    const group = this.#holdings.byId("activation", activationId);
    if (!group) return 0;
    const gone = [...group.entries.values()].filter((e) => !stillLeased.has(e.leaseId));
    this.#holdings.release(group, gone);
    return gone.length;
  }

  settleLauncher(operationId: string): boolean {
    const group = this.#holdings.byId("launcher", operationId);
    if (!group) return false;
    this.#holdings.erase(group, "settled");
    return true;
  }

  // ---- extending --------------------------------------------------------------------------

  extendActivation(activationId: string, minutes: number): ActivationExtension {
    this.#open();
    const target = this.#checkMinutes(minutes);
    const group = this.#current("activation", activationId);
    if (!group) throw new CredentialUnavailableError();
    const changed = this.#upkeep.extend(group, target);
    return { changed, activationId, ...times(group), credentialCount: group.entries.size };
  }

  /**
   * Heartbeats a launcher operation now (joining a renewal already in flight) and optionally
   * extends custody. A failure is recorded exactly like a background one and rejects with
   * `RenewalFailedError` (the renewer's code and retryable flag, scrubbed message).
   */
  async renewLauncherNow(
    operationId: string,
    handle: string,
    minutes?: number,
  ): Promise<LauncherHeartbeat<R>> {
    const target = minutes === undefined ? undefined : this.#checkMinutes(minutes);
    const { group, entry } = this.#lookup("launcher", handle, operationId);
    const secret = entry.secret; // kept for scrubbing: erasure blanks the entry
    const outcome = await this.#upkeep.renew(group);
    if (this.#holdings.closed) throw new CustodyClosedError();
    if (!outcome.ok) {
      // Our own abort reasons (settled, closed, timed out) are safe as they are.
      if (outcome.error instanceof CustodyError) throw outcome.error;
      const { failure, retryable } = describeFailure(outcome.error, this.#clock.now(), [secret]);
      throw new RenewalFailedError(failure, retryable, safeDetails(outcome.error, [secret]));
    }
    if (!this.#holdings.isLive(group) || !outcome.launcher) throw new CredentialUnavailableError();
    const custodyChanged = target !== undefined && this.#upkeep.extend(group, target);
    return { ...launcherView(group), renewal: outcome.launcher, custodyChanged };
  }

  // ---- shutdown ---------------------------------------------------------------------------

  /** Erases everything, cancels every timer and aborts in-flight renewals. Idempotent. */
  async close(): Promise<void> {
    if (this.#holdings.closed) return;
    const settled = this.#holdings.close();
    this.#tombstones.clear();
    await settled;
  }

  /**
   * Replaces every fragment (12+ characters) of any credential ever handed to this vault
   * with `[redacted]`; see fragments.ts. Keeps working after erasure and after close.
   */
  scrub(text: string, mode: "json" | "text" = "json"): string {
    return this.#fragments.scrub(text, mode);
  }

  /** `value` (plain JSON data) with every remembered fragment masked in its string values. */
  scrubValue<T>(value: T): T {
    const json = JSON.stringify(value);
    if (json === undefined) return value;
    const scrubbed = this.#fragments.scrub(json);
    return scrubbed === json ? value : JSON.parse(scrubbed);
  }

  // ---- warnings ---------------------------------------------------------------------------

  /**
   * What the holder must be told now: every held credential whose last renewal failed or is
   * late (until a renewal succeeds), and every credential that lapsed since the last call
   * (each reported once). Undefined when all is well.
   */
  takeWarnings(): CustodyWarnings | undefined {
    if (this.#holdings.closed) return undefined;
    const atRisk: AtRisk[] = [];
    for (const group of this.#holdings.all()) {
      if (this.#upkeep.lapse(group) || !group.failure) continue;
      const { kind, id } = group;
      atRisk.push({ kind, id, expiresAt: soonestExpiry(group), failure: { ...group.failure } });
    }
    const lapsed = this.#tombstones.takeLapses();
    return atRisk.length > 0 || lapsed.length > 0 ? { atRisk, lapsed } : undefined;
  }

  // ---- internals --------------------------------------------------------------------------

  /** What holding and admitting a lease share: its secret learnt, its fields checked, held. */
  #holdLease(lease: NewLease): Group<R> {
    this.#recognise(lease.token);
    requireId("leaseId", lease.leaseId);
    const entry = checkedEntry(lease.leaseId, lease.token, lease.expiresAt, "", "");
    return this.#hold("lease", lease.leaseId, [entry], Infinity);
  }

  /** The same for an activation: at least one lease, each once, every field checked. */
  #holdActivation(activationId: string, leases: readonly NewActivationLease[]): Group<R> {
    if (Array.isArray(leases)) { for (const l of leases) this.#recognise(l?.token); }
    requireId("activationId", activationId);
    if (!Array.isArray(leases) || leases.length === 0) {
      throw new TypeError("custody: an activation needs at least one lease");
    }
    const entries = leases.map((l) => {
      requireId("leaseId", l.leaseId);
      return checkedEntry(l.leaseId, l.token, l.expiresAt, l.component, l.endpoint);
    });
    if (new Set(entries.map((e) => e.leaseId)).size !== entries.length) {
      throw new TypeError("custody: duplicate leaseId in activation");
    }
    return this.#hold("activation", activationId, entries, Infinity);
  }

  /** Holds checked credentials and arms their upkeep. */
  #hold(kind: CredentialKind, id: string, entries: NewEntry[], renewAfterMs: number): Group<R> {
    const group = this.#holdings.insert(kind, id, entries, renewAfterMs);
    this.#upkeep.start(group);
    return group;
  }

  /** Learns a secret's fragments before anything can fail, so even a refused hold is known. */
  #recognise(secret: unknown): void {
    if (typeof secret === "string") this.#fragments.remember(secret);
  }

  #open(): void {
    if (this.#holdings.closed) throw new CustodyClosedError();
  }

  /** Resolves a handle bound to `kind` (and `ownerId`), or throws the one unavailable error. */
  #lookup(kind: CredentialKind, handle: string, ownerId?: string) {
    this.#open();
    this.#tombstones.prune(this.#clock.now());
    const found = typeof handle === "string" ? this.#holdings.byHandle(handle) : undefined;
    if (found) this.#upkeep.lapse(found);
    const group = this.#holdings.byHandle(handle);
    const entry = group?.entries.get(handle);
    if (group && entry && group.kind === kind && (ownerId === undefined || group.id === ownerId)) {
      return { group, entry };
    }
    throw new CredentialUnavailableError(this.#tombstones.find(kind, handle, ownerId));
  }

  #current(kind: CredentialKind, id: string): Group<R> | undefined {
    this.#open();
    const group = this.#holdings.byId(kind, id);
    if (!group || this.#upkeep.lapse(group)) return undefined;
    return group;
  }

  #checkMinutes(minutes: number): number {
    const min = this.#defaultMs / MINUTE_MS;
    const max = this.#maximumMs / MINUTE_MS;
    if (typeof minutes !== "number" || !(minutes >= min && minutes <= max)) {
      throw new CustodyLimitError(minutes, min, max);
    }
    return minutes;
  }
}
