/**
 * Custody arithmetic, kept pure so the schedule can be tested without timers.
 *
 * A renewal goes out when the credential has `renewalMargin` left: enough for the daemon's
 * observed delay twice over, at least a third of the TTL (time for two more attempts), and at
 * least 10 s (or two thirds of a short TTL) to ride out a brief daemon outage. It never goes
 * out more often than the design's min(remaining / 3, 10 s). For TTLs up to 15 s (the default)
 * on a prompt daemon this is exactly the design's cadence; a longer TTL is renewed when
 * max(10 s, a third of it) is left instead of every 10 s, so raising `leaseTtlMilliseconds`
 * really lowers the renewal load on a slow daemon (see docs/many-agents.md).
 */

export const MINUTE_MS = 60_000;
/** The design's shortest renewal interval bound: renew at least this often... */
export const RENEW_CEILING_MS = 10_000;
/** ...and, as a margin, the daemon outage a credential should survive. */
const OUTAGE_BUDGET_MS = 10_000;
/** A slow daemon moves renewals earlier by this much on top of twice its delay. */
const DELAY_SLACK_MS = 1_000;

/** What the next renewal is timed by. All times epoch ms. */
export interface RenewalTiming {
  now: number;
  /** The soonest expiry (lease TTL or launcher deadline) among the credentials. */
  expiresAt: number;
  /** The TTL the daemon granted last (expiry minus the time its answer arrived). */
  ttlMs: number;
  custodyExpiresAt: number;
  /** The daemon's requested launcher cadence; Infinity for leases. */
  renewAfterMs?: number;
  /** How long the daemon takes to answer lately (0 when prompt). */
  daemonDelayMs?: number;
}

/** Time before expiry at which a renewal goes out. */
export function renewalMargin(ttlMs: number, daemonDelayMs = 0): number {
  const ttl = Math.max(1, ttlMs);
  const floor = Math.max(ttl / 3, Math.min((2 * ttl) / 3, OUTAGE_BUDGET_MS));
  // A slow daemon's queue is crossed before expiry; past half the TTL, earlier renewals would
  // only add to that queue, so the margin stops growing there.
  const ceiling = Math.max(floor, ttl / 2);
  return Math.min(ceiling, Math.max(floor, 2 * daemonDelayMs + DELAY_SLACK_MS));
}

/** Delay until the next renewal, never below 1 ms nor past custody's end. */
export function renewDelay(timing: RenewalTiming): number {
  const { now, expiresAt, ttlMs, custodyExpiresAt } = timing;
  const remaining = expiresAt - now;
  const margin = renewalMargin(ttlMs, timing.daemonDelayMs ?? 0);
  const designDelay = Math.min(RENEW_CEILING_MS, Math.floor(remaining / 3));
  const delay = Math.max(designDelay, Math.floor(remaining - margin));
  return Math.max(1, Math.min(delay, timing.renewAfterMs ?? Infinity, custodyExpiresAt - now));
}

/**
 * When an unanswered renewal counts as late (the holder is warned): once half the time the
 * credential had left when it went out has passed.
 */
export function lateAfter(sentAt: number, expiresAt: number): number {
  return Math.max(1, Math.floor((expiresAt - sentAt) / 2));
}

/** Time a renewal needs on top of the daemon's observed delay to be answered in time. */
const LANDING_SLACK_MS = 1_000;

/**
 * How much of its TTL a credential must have left when it arrives to be held as it is: enough
 * for a renewal to be answered (the daemon's observed delay and a second), and no less than
 * the margin at which custody renews it anyway, so it is never reported held while its first
 * renewal is already due.
 */
export function arrivalNeed(ttlMs: number, daemonDelayMs: number): number {
  return Math.max(daemonDelayMs + LANDING_SLACK_MS, renewalMargin(ttlMs, daemonDelayMs));
}

/**
 * What to do with a credential the daemon has just granted, expiring at `expiresAt`. The
 * daemon sets a lease's expiry from the start of its work, so an acquire that waited in a busy
 * daemon can arrive with its expiry near or past: past, it lapsed; within `needMs`
 * (`arrivalNeed`), it is renewed before it is reported as held; otherwise it is held.
 */
export function arrival(
  now: number,
  expiresAt: number,
  needMs: number,
): "lapsed" | "renew-now" | "hold" {
  const left = expiresAt - now;
  if (left <= 0) return "lapsed";
  return left <= needMs ? "renew-now" : "hold";
}

/** Custody end for an extension request, measured from acquisition and capped at the maximum. */
export function extendedCustody(
  acquiredAt: number,
  minutes: number,
  maximumCustodyExpiresAt: number,
): number {
  return Math.min(acquiredAt + minutes * MINUTE_MS, maximumCustodyExpiresAt);
}
