import { type Clock, realClock } from "./clock.ts";
import {
  arrival,
  arrivalNeed,
  extendedCustody,
  lateAfter,
  MINUTE_MS,
  renewDelay,
} from "./cadence.ts";
import {
  CredentialUnavailableError,
  CustodyClosedError,
  CustodyError,
  CustodyLimitError,
  describeFailure,
  HandleCollisionError,
  lateRenewal,
  LeaseLapsedError,
  RenewalFailedError,
  safeDetails,
} from "./errors.ts";
import { cryptoFill, newHandle, type RandomFill } from "./handle.ts";
import { CredentialFragments } from "./fragments.ts";
import {
  activationView,
  checkedEntry,
  type Group,
  keyOf,
  launcherView,
  leaseView,
  type NewEntry,
  requireId,
  requireTime,
  soonestExpiry,
  times,
  withFailure,
} from "./group.ts";
import { performRenewal, type Sent } from "./renewal.ts";
import { Codes } from "../shared/errors.ts";
import type {
  ActivationExtension,
  ActivationLeaseUse,
  AtRisk,
  CredentialKind,
  CustodyEvent,
  CustodyOptions,
  CustodyWarnings,
  ErasedReason,
  HeldActivation,
  HeldLauncher,
  HeldLease,
  Lapsed,
  LauncherHeartbeat,
  LauncherRenewal,
  LauncherUse,
  LeaseUse,
  Outcome,
  RenewalFailure,
  Renewers,
} from "./group.ts";

/** A lease the daemon granted, as custody is handed it. */
type NewLease = { leaseId: string; token: string; expiresAt: number };

/** One of an activation's leases, as custody is handed it. */
type NewActivationLease = NewLease & { component: string; endpoint: string };

/** What remains of a credential erased after a terminal renewal failure (no secret). */
interface Tombstone {
  kind: CredentialKind;
  id: string;
  failure: RenewalFailure;
  dropAt: number;
}

/** Process-local vault of daemon secrets behind opaque handles. See mod.ts for the contract. */
export class Custody<R extends LauncherRenewal = LauncherRenewal> {
  readonly #clock: Clock;
  readonly #renewers: Renewers<R>;
  readonly #defaultMs: number;
  readonly #maximumMs: number;
  readonly #graceMs: number;
  readonly #daemonDelayMs: () => number;
  readonly #maxTombstones: number;
  readonly #onEvent?: (event: CustodyEvent) => void;
  readonly #fill: RandomFill;
  readonly #groups = new Map<string, Group<R>>();
  readonly #handles = new Map<string, Group<R>>();
  readonly #tombstones = new Map<string, Tombstone>();
  readonly #fragments: CredentialFragments;
  /** Lapses not yet reported to the holder (bounded like the tombstones). */
  #lapses: Lapsed[] = [];
  #closed = false;

  constructor(options: CustodyOptions<R>) {
    this.#renewers = options.renewers;
    this.#clock = options.clock ?? realClock;
    this.#defaultMs = options.defaultCustodyMs ?? 10 * MINUTE_MS;
    this.#maximumMs = options.maximumCustodyMs ?? 60 * MINUTE_MS;
    this.#graceMs = options.answerGraceMs ?? 2_000;
    this.#daemonDelayMs = options.daemonDelayMs ?? (() => 0);
    this.#maxTombstones = options.maxTombstones ?? 256;
    this.#onEvent = options.onEvent;
    this.#fill = options.randomFill ?? cryptoFill;
    this.#fragments = options.fragments ?? new CredentialFragments();
    if (!(this.#defaultMs > 0 && this.#defaultMs <= this.#maximumMs)) {
      throw new RangeError("custody: need 0 < defaultCustodyMs <= maximumCustodyMs");
    }
    if (!(this.#graceMs >= 0)) throw new RangeError("custody: answerGraceMs must be >= 0");
  }

  /** Number of credentials currently held. */
  get size(): number {
    let count = 0;
    for (const group of this.#groups.values()) count += group.entries.size;
    return count;
  }

  get closed(): boolean {
    return this.#closed;
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
      this.#insert("launcher", operationId, [entry], renewAfterMilliseconds),
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
    return leaseView(await this.#judge(this.#holdLease(lease), sentAt));
  }

  /** `admitLease` for an activation's leases, judged by the soonest to expire. */
  async admitActivation(
    activationId: string,
    leases: readonly NewActivationLease[],
    sentAt: number,
  ): Promise<HeldActivation> {
    return activationView(await this.#judge(this.#holdActivation(activationId, leases), sentAt));
  }

  /**
   * Keeps a just-held group whose expiry a renewal can still beat; renews it at once when its
   * expiry falls sooner; erases it when it has passed, or the renewal failed.
   */
  async #judge(group: Group<R>, sentAt: number): Promise<Group<R>> {
    const expiresAt = soonestExpiry(group);
    // The daemon sets an expiry from the start of its work, not from its answer: the TTL it
    // granted is the span from when the request went out, at most.
    group.ttlMs = Math.max(group.ttlMs, expiresAt - sentAt);
    const now = this.#clock.now();
    const need = arrivalNeed(group.ttlMs, this.#daemonDelayMs());
    const verdict = arrival(now, expiresAt, need);
    if (verdict === "hold") {
      this.#schedule(group); // by the TTL as now judged
      return group;
    }
    let failure: RenewalFailure | undefined;
    if (verdict === "renew-now") {
      const secrets = [...group.entries.values()].map((e) => e.secret);
      const outcome = await this.#renew(group);
      if (outcome.ok && this.#isLive(group) && !this.#lapse(group)) return group;
      if (!outcome.ok) failure = describeFailure(outcome.error, this.#clock.now(), secrets).failure;
    }
    const { kind, id } = group;
    // Reported by the error, not again as a warning: the holder never had this credential.
    if (this.#isLive(group)) this.#erase(group, "lease-expired");
    this.#lapses = this.#lapses.filter((l) => l.kind !== kind || l.id !== id);
    throw new LeaseLapsedError(kind, id, { expiresAt, now: this.#clock.now(), failure });
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
    const group = this.#handles.get(handle);
    this.#tombstones.delete(handle);
    if (!group || group.kind !== "lease") return false;
    this.#erase(group, "settled");
    return true;
  }

  /**
   * Erases every credential of the activation whose lease is not in `stillLeased` (the
   * lease ids of endpoints the daemon still reports as `leased`). Returns how many went.
   */
  settleActivationLeases(activationId: string, stillLeased: ReadonlySet<string>): number {
    const group = this.#groups.get(keyOf("activation", activationId));
    if (!group) return 0;
    const gone = [...group.entries.values()].filter((e) => !stillLeased.has(e.leaseId));
    for (const entry of gone) {
      this.#handles.delete(entry.handle);
      entry.secret = "";
      group.entries.delete(entry.handle);
    }
    if (group.entries.size === 0) {
      this.#erase(group, "settled", gone.length);
    } else if (gone.length > 0) {
      const credentialCount = gone.length;
      this.#emit({
        type: "erased",
        kind: "activation",
        id: activationId,
        credentialCount,
        reason: "settled",
      });
    }
    return gone.length;
  }

  settleLauncher(operationId: string): boolean {
    const group = this.#groups.get(keyOf("launcher", operationId));
    if (!group) return false;
    this.#erase(group, "settled");
    return true;
  }

  // ---- extending --------------------------------------------------------------------------

  extendActivation(activationId: string, minutes: number): ActivationExtension {
    this.#open();
    const target = this.#checkMinutes(minutes);
    const group = this.#current("activation", activationId);
    if (!group) throw new CredentialUnavailableError();
    const changed = this.#extend(group, target);
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
    const outcome = await this.#renew(group);
    if (this.#closed) throw new CustodyClosedError();
    if (!outcome.ok) {
      // Our own abort reasons (settled, closed, timed out) are safe as they are.
      if (outcome.error instanceof CustodyError) throw outcome.error;
      const { failure, retryable } = describeFailure(outcome.error, this.#clock.now(), [secret]);
      throw new RenewalFailedError(failure, retryable, safeDetails(outcome.error, [secret]));
    }
    if (!this.#isLive(group) || !outcome.launcher) throw new CredentialUnavailableError();
    const custodyChanged = target !== undefined && this.#extend(group, target);
    return { ...launcherView(group), renewal: outcome.launcher, custodyChanged };
  }

  // ---- shutdown ---------------------------------------------------------------------------

  /** Erases everything, cancels every timer and aborts in-flight renewals. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const inflight: Promise<unknown>[] = [];
    for (const group of [...this.#groups.values()]) {
      if (group.inflight) inflight.push(group.inflight);
      this.#drop(group, new CustodyClosedError());
    }
    this.#tombstones.clear();
    this.#lapses = [];
    await Promise.allSettled(inflight);
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
    if (this.#closed) return undefined;
    const atRisk: AtRisk[] = [];
    for (const group of [...this.#groups.values()]) {
      if (this.#lapse(group) || !group.failure) continue;
      const { kind, id } = group;
      atRisk.push({ kind, id, expiresAt: soonestExpiry(group), failure: { ...group.failure } });
    }
    const lapsed = this.#lapses;
    this.#lapses = [];
    return atRisk.length > 0 || lapsed.length > 0 ? { atRisk, lapsed } : undefined;
  }

  // ---- internals --------------------------------------------------------------------------

  /** What holding and admitting a lease share: its secret learnt, its fields checked, held. */
  #holdLease(lease: NewLease): Group<R> {
    this.#recognise(lease.token);
    requireId("leaseId", lease.leaseId);
    const entry = checkedEntry(lease.leaseId, lease.token, lease.expiresAt, "", "");
    return this.#insert("lease", lease.leaseId, [entry], Infinity);
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
    return this.#insert("activation", activationId, entries, Infinity);
  }

  /** Learns a secret's fragments before anything can fail, so even a refused hold is known. */
  #recognise(secret: unknown): void {
    if (typeof secret === "string") this.#fragments.remember(secret);
  }

  #open(): void {
    if (this.#closed) throw new CustodyClosedError();
  }

  #insert(kind: CredentialKind, id: string, items: NewEntry[], renewAfterMs: number): Group<R> {
    this.#open();
    const now = this.#clock.now();
    const group: Group<R> = {
      kind,
      id,
      entries: new Map(),
      acquiredAt: now,
      custodyExpiresAt: now + this.#defaultMs,
      maximumCustodyExpiresAt: now + this.#maximumMs,
      renewAfterMs,
      ttlMs: 1,
    };
    // Built completely before registration, so a collision leaves nothing behind.
    for (const item of items) {
      const handle = this.#mintHandle(group);
      group.entries.set(handle, { handle, ...item });
    }
    group.ttlMs = Math.max(1, soonestExpiry(group) - now);
    // A second hold for the same id means the daemon issued new secrets; the old ones are dead.
    const previous = this.#groups.get(keyOf(kind, id));
    if (previous) this.#drop(previous, new CredentialUnavailableError());
    this.#groups.set(keyOf(kind, id), group);
    for (const handle of group.entries.keys()) this.#handles.set(handle, group);
    this.#armExpiry(group);
    this.#schedule(group);
    return group;
  }

  #mintHandle(group: Group<R>): string {
    for (let attempt = 0; attempt < 4; attempt++) {
      const handle = newHandle(this.#fill);
      const taken = this.#handles.has(handle) || this.#tombstones.has(handle) ||
        group.entries.has(handle);
      if (!taken) return handle;
    }
    throw new HandleCollisionError();
  }

  /** Resolves a handle bound to `kind` (and `ownerId`), or throws the one unavailable error. */
  #lookup(kind: CredentialKind, handle: string, ownerId?: string) {
    this.#open();
    this.#pruneTombstones();
    const found = typeof handle === "string" ? this.#handles.get(handle) : undefined;
    if (found) this.#lapse(found);
    const group = this.#handles.get(handle);
    const entry = group?.entries.get(handle);
    if (group && entry && group.kind === kind && (ownerId === undefined || group.id === ownerId)) {
      return { group, entry };
    }
    const tomb = this.#tombstones.get(handle);
    if (tomb && tomb.kind === kind && (ownerId === undefined || tomb.id === ownerId)) {
      throw new CredentialUnavailableError(tomb);
    }
    throw new CredentialUnavailableError();
  }

  #current(kind: CredentialKind, id: string): Group<R> | undefined {
    this.#open();
    const group = this.#groups.get(keyOf(kind, id));
    if (!group || this.#lapse(group)) return undefined;
    return group;
  }

  #isLive(group: Group<R>): boolean {
    return !this.#closed && this.#groups.get(keyOf(group.kind, group.id)) === group;
  }

  #checkMinutes(minutes: number): number {
    const min = this.#defaultMs / MINUTE_MS;
    const max = this.#maximumMs / MINUTE_MS;
    if (typeof minutes !== "number" || !(minutes >= min && minutes <= max)) {
      throw new CustodyLimitError(minutes, min, max);
    }
    return minutes;
  }

  /** Only ever lengthens; returns whether custody grew. */
  #extend(group: Group<R>, minutes: number): boolean {
    const target = extendedCustody(group.acquiredAt, minutes, group.maximumCustodyExpiresAt);
    if (target <= group.custodyExpiresAt) return false;
    group.custodyExpiresAt = target;
    this.#armExpiry(group);
    this.#schedule(group);
    return true;
  }

  /** Erases the group if custody ended or its secret died; true when it did. */
  #lapse(group: Group<R>): boolean {
    const now = this.#clock.now();
    if (now >= group.custodyExpiresAt) {
      this.#erase(group, "custody-expired");
      return true;
    }
    // An answer to a renewal in flight may still be on its way just past the expiry.
    const grace = group.inflight ? this.#graceMs : 0;
    if (now >= soonestExpiry(group) + grace) {
      const launcher = group.kind === "launcher";
      const failure = group.failure ?? {
        code: launcher ? Codes.operationDeadlinePassed : Codes.leaseExpired,
        message: launcher ? "the operation deadline passed" : "the lease TTL elapsed",
        at: now,
      };
      this.#bury(group, failure);
      this.#erase(group, launcher ? "deadline-passed" : "lease-expired");
      return true;
    }
    return false;
  }

  #armExpiry(group: Group<R>): void {
    if (group.expiryTimer !== undefined) this.#clock.clearTimeout(group.expiryTimer);
    const delay = Math.max(0, group.custodyExpiresAt - this.#clock.now());
    group.expiryTimer = this.#clock.setTimeout(() => {
      group.expiryTimer = undefined;
      // A timer that fires a little early re-arms instead of leaving custody unbounded.
      if (this.#isLive(group) && !this.#lapse(group)) this.#armExpiry(group);
    }, delay);
  }

  /** One renewal timer per group, never armed while a renewal is in flight. */
  #schedule(group: Group<R>): void {
    if (!this.#isLive(group) || group.inflight) return;
    if (group.renewTimer !== undefined) this.#clock.clearTimeout(group.renewTimer);
    const delay = renewDelay({
      now: this.#clock.now(),
      expiresAt: soonestExpiry(group),
      ttlMs: group.ttlMs,
      custodyExpiresAt: group.custodyExpiresAt,
      renewAfterMs: group.renewAfterMs,
      daemonDelayMs: this.#daemonDelayMs(),
    });
    group.renewTimer = this.#clock.setTimeout(() => {
      group.renewTimer = undefined;
      if (this.#isLive(group) && !this.#lapse(group)) void this.#renew(group);
    }, delay);
  }

  /**
   * Starts a renewal of the whole group, or joins the one in flight (coalescing): one renewal
   * per credential at a time. It is awaited until the credential's expiry (plus the answer
   * grace), never abandoned and re-sent while it could still land: on a daemon that serves
   * one request at a time, a re-sent renewal only lengthens the queue it waits in. Halfway
   * there without an answer it is recorded as late, so the holder is warned in time.
   */
  #renew(group: Group<R>): Promise<Outcome<R>> {
    if (group.inflight) return group.inflight;
    if (group.renewTimer !== undefined) {
      this.#clock.clearTimeout(group.renewTimer);
      group.renewTimer = undefined;
    }
    const controller = new AbortController();
    const sent: Sent[] = [...group.entries.values()].map((e) => ({
      handle: e.handle,
      leaseId: e.leaseId,
      token: e.secret,
    }));
    const sentAt = this.#clock.now();
    const dueAt = soonestExpiry(group);
    const timeoutMs = Math.max(1, dueAt - sentAt + this.#graceMs);
    const call = { clock: this.#clock, renewers: this.#renewers, timeoutMs, dueAt };
    group.controller = controller;
    group.lateTimer = this.#clock.setTimeout(() => {
      group.lateTimer = undefined;
      if (group.controller === controller && this.#isLive(group)) {
        this.#markLate(group, sentAt, dueAt);
      }
    }, lateAfter(sentAt, dueAt));
    group.inflight = performRenewal(call, group, sent, controller).then((outcome) => {
      group.inflight = undefined;
      group.controller = undefined;
      if (group.lateTimer !== undefined) this.#clock.clearTimeout(group.lateTimer);
      group.lateTimer = undefined;
      // Settled, replaced, expired or closed meanwhile: apply nothing, resurrect nothing.
      if (this.#isLive(group)) this.#conclude(group, sent, outcome);
      return outcome;
    });
    return group.inflight;
  }

  #markLate(group: Group<R>, sentAt: number, dueAt: number): void {
    const failure = lateRenewal(group.kind, sentAt, dueAt, this.#clock.now());
    group.failure = failure;
    this.#emit({ type: "renewal-late", kind: group.kind, id: group.id, failure });
  }

  #conclude(group: Group<R>, sent: Sent[], outcome: Outcome<R>): void {
    const now = this.#clock.now();
    if (outcome.ok) {
      group.failure = undefined;
      group.ttlMs = Math.max(1, soonestExpiry(group) - now);
      this.#emit({
        type: "renewed",
        kind: group.kind,
        id: group.id,
        credentialCount: group.entries.size,
        expiresAt: soonestExpiry(group),
      });
      if (!this.#lapse(group)) this.#schedule(group);
      return;
    }
    const { failure, retryable } = describeFailure(
      outcome.error,
      now,
      sent.map((s) => s.token),
    );
    // A member settled mid-flight can make the daemon reject the whole batch; retry with the
    // members still held instead of condemning them.
    if (sent.some((s) => !group.entries.has(s.handle))) {
      this.#schedule(group);
      return;
    }
    this.#emit({ type: "renewal-failed", kind: group.kind, id: group.id, retryable, failure });
    if (retryable) {
      group.failure = failure;
      if (!this.#lapse(group)) this.#schedule(group);
    } else {
      this.#bury(group, failure);
      this.#erase(group, "renewal-failed");
    }
  }

  /**
   * Leaves secret-free tombstones so the next use explains why the handle died, and a notice
   * for the holder's next result.
   */
  #bury(group: Group<R>, failure: RenewalFailure): void {
    this.#lapses.push({ kind: group.kind, id: group.id, failure });
    if (this.#lapses.length > this.#maxTombstones) this.#lapses.shift();
    for (const handle of group.entries.keys()) {
      this.#tombstones.set(handle, {
        kind: group.kind,
        id: group.id,
        failure,
        dropAt: group.custodyExpiresAt,
      });
    }
    while (this.#tombstones.size > this.#maxTombstones) {
      this.#tombstones.delete(this.#tombstones.keys().next().value!);
    }
  }

  #pruneTombstones(): void {
    const now = this.#clock.now();
    for (const [handle, tomb] of this.#tombstones) {
      if (tomb.dropAt <= now) this.#tombstones.delete(handle);
    }
  }

  #erase(group: Group<R>, reason: ErasedReason, credentialCount = group.entries.size): void {
    this.#drop(group, new CredentialUnavailableError());
    this.#emit({ type: "erased", kind: group.kind, id: group.id, credentialCount, reason });
  }

  /** Unregisters a group, stops its timers, aborts its renewal and forgets its secrets. */
  #drop(group: Group<R>, reason: Error): void {
    if (this.#groups.get(keyOf(group.kind, group.id)) === group) {
      this.#groups.delete(keyOf(group.kind, group.id));
    }
    if (group.renewTimer !== undefined) this.#clock.clearTimeout(group.renewTimer);
    if (group.expiryTimer !== undefined) this.#clock.clearTimeout(group.expiryTimer);
    if (group.lateTimer !== undefined) this.#clock.clearTimeout(group.lateTimer);
    group.renewTimer = group.expiryTimer = group.lateTimer = undefined;
    group.controller?.abort(reason);
    for (const entry of group.entries.values()) {
      if (this.#handles.get(entry.handle) === group) this.#handles.delete(entry.handle);
      // Strings cannot be zeroed in JS; dropping every reference is the best available.
      entry.secret = "";
    }
    group.entries.clear();
  }

  #emit(event: CustodyEvent): void {
    try {
      this.#onEvent?.(event);
    } catch {
      // Logging must never break custody.
    }
  }
}
