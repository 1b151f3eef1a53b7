/**
 * Keeping held credentials alive, and letting them go when they die: each group's custody
 * timer, its renewal timer (on cadence.ts's schedule), the renewal in flight (renewal.ts) and
 * what its answer does, the judgement of a grant as it arrives (mod.ts, "Arrival"), and the
 * lapse of a group whose custody, TTL or deadline has passed.
 */
import type { Clock } from "./clock.ts";
import { arrival, arrivalNeed, extendedCustody, lateAfter, renewDelay } from "./cadence.ts";
import { describeFailure, lateRenewal, LeaseLapsedError } from "./errors.ts";
import {
  type Group,
  type LauncherRenewal,
  type Outcome,
  type RenewalFailure,
  type Renewers,
  soonestExpiry,
} from "./group.ts";
import type { Holdings } from "./holdings.ts";
import { performRenewal, type Sent } from "./renewal.ts";
import type { Tombstones } from "./tombstones.ts";
import { Codes } from "../shared/errors.ts";

interface UpkeepOptions<R extends LauncherRenewal> {
  clock: Clock;
  renewers: Renewers<R>;
  /** How long past a credential's expiry an unanswered renewal is still awaited. */
  graceMs: number;
  /** How long the daemon takes to answer lately (ms). */
  daemonDelayMs: () => number;
  holdings: Holdings<R>;
  tombstones: Tombstones;
}

export class Upkeep<R extends LauncherRenewal> {
  readonly #clock: Clock;
  readonly #renewers: Renewers<R>;
  readonly #graceMs: number;
  readonly #daemonDelayMs: () => number;
  readonly #holdings: Holdings<R>;
  readonly #tombstones: Tombstones;

  constructor(options: UpkeepOptions<R>) {
    this.#clock = options.clock;
    this.#renewers = options.renewers;
    this.#graceMs = options.graceMs;
    this.#daemonDelayMs = options.daemonDelayMs;
    this.#holdings = options.holdings;
    this.#tombstones = options.tombstones;
  }

  /** Arms a group just held: its custody timer and its first renewal. */
  start(group: Group<R>): void {
    this.#armExpiry(group);
    this.#schedule(group);
  }

  /**
   * Keeps a just-held group whose expiry a renewal can still beat; renews it at once when its
   * expiry falls sooner; erases it when it has passed, or the renewal failed.
   */
  async judge(group: Group<R>, sentAt: number): Promise<Group<R>> {
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
      const outcome = await this.renew(group);
      if (outcome.ok && this.#holdings.isLive(group) && !this.lapse(group)) return group;
      if (!outcome.ok) failure = describeFailure(outcome.error, this.#clock.now(), secrets).failure;
    }
    const { kind, id } = group;
    // Reported by the error, not again as a warning: the holder never had this credential.
    if (this.#holdings.isLive(group)) this.#holdings.erase(group, "lease-expired");
    this.#tombstones.unreport(kind, id);
    throw new LeaseLapsedError(kind, id, { expiresAt, now: this.#clock.now(), failure });
  }

  /** Erases the group if custody ended or its secret died; true when it did. */
  lapse(group: Group<R>): boolean {
    const now = this.#clock.now();
    if (now >= group.custodyExpiresAt) {
      this.#holdings.erase(group, "custody-expired");
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
      this.#tombstones.bury(group, failure);
      this.#holdings.erase(group, launcher ? "deadline-passed" : "lease-expired");
      return true;
    }
    return false;
  }

  /** Custody to acquisition + `minutes`, only ever lengthened; returns whether it grew. */
  extend(group: Group<R>, minutes: number): boolean {
    const target = extendedCustody(group.acquiredAt, minutes, group.maximumCustodyExpiresAt);
    if (target <= group.custodyExpiresAt) return false;
    group.custodyExpiresAt = target;
    this.start(group);
    return true;
  }

  /**
   * Starts a renewal of the whole group, or joins the one in flight (coalescing): one renewal
   * per credential at a time. It is awaited until the credential's expiry (plus the answer
   * grace), never abandoned and re-sent while it could still land: on a daemon that serves
   * one request at a time, a re-sent renewal only lengthens the queue it waits in. Halfway
   * there without an answer it is recorded as late, so the holder is warned in time.
   */
  renew(group: Group<R>): Promise<Outcome<R>> {
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
      if (group.controller === controller && this.#holdings.isLive(group)) {
        this.#markLate(group, sentAt, dueAt);
      }
    }, lateAfter(sentAt, dueAt));
    group.inflight = performRenewal(call, group, sent, controller).then((outcome) => {
      group.inflight = undefined;
      group.controller = undefined;
      if (group.lateTimer !== undefined) this.#clock.clearTimeout(group.lateTimer);
      group.lateTimer = undefined;
      // Settled, replaced, expired or closed meanwhile: apply nothing, resurrect nothing.
      if (this.#holdings.isLive(group)) this.#conclude(group, sent, outcome);
      return outcome;
    });
    return group.inflight;
  }

  #armExpiry(group: Group<R>): void {
    if (group.expiryTimer !== undefined) this.#clock.clearTimeout(group.expiryTimer);
    const delay = Math.max(0, group.custodyExpiresAt - this.#clock.now());
    group.expiryTimer = this.#clock.setTimeout(() => {
      group.expiryTimer = undefined;
      // A timer that fires a little early re-arms instead of leaving custody unbounded.
      if (this.#holdings.isLive(group) && !this.lapse(group)) this.#armExpiry(group);
    }, delay);
  }

  /** One renewal timer per group, never armed while a renewal is in flight. */
  #schedule(group: Group<R>): void {
    if (!this.#holdings.isLive(group) || group.inflight) return;
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
      if (this.#holdings.isLive(group) && !this.lapse(group)) void this.renew(group);
    }, delay);
  }

  #markLate(group: Group<R>, sentAt: number, dueAt: number): void {
    const failure = lateRenewal(group.kind, sentAt, dueAt, this.#clock.now());
    group.failure = failure;
    this.#holdings.emit({ type: "renewal-late", kind: group.kind, id: group.id, failure });
  }

  #conclude(group: Group<R>, sent: Sent[], outcome: Outcome<R>): void {
    const now = this.#clock.now();
    if (outcome.ok) {
      group.failure = undefined;
      group.ttlMs = Math.max(1, soonestExpiry(group) - now);
      this.#holdings.emit({
        type: "renewed",
        kind: group.kind,
        id: group.id,
        credentialCount: group.entries.size,
        expiresAt: soonestExpiry(group),
      });
      if (!this.lapse(group)) this.#schedule(group);
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
    const { kind, id } = group;
    this.#holdings.emit({ type: "renewal-failed", kind, id, retryable, failure });
    if (retryable) {
      group.failure = failure;
      if (!this.lapse(group)) this.#schedule(group);
    } else {
      this.#tombstones.bury(group, failure);
      this.#holdings.erase(group, "renewal-failed");
    }
  }
}
