/** Custody arithmetic, kept pure so the schedule can be tested without timers. */

export const MINUTE_MS = 60_000;
/** Renew at least this often whatever the TTL. */
export const RENEW_CEILING_MS = 10_000;

/**
 * Delay until the next renewal: min(10 s, ⌊remaining TTL / 3⌋, daemon's renewAfter, time left
 * in custody), never below 1 ms. A third of the TTL leaves two more attempts before expiry.
 */
export function renewDelay(
  now: number,
  soonestExpiresAt: number,
  custodyExpiresAt: number,
  renewAfterMs: number = Infinity,
): number {
  const ttlThird = Math.floor((soonestExpiresAt - now) / 3);
  return Math.max(1, Math.min(RENEW_CEILING_MS, ttlThird, renewAfterMs, custodyExpiresAt - now));
}

/** Custody end for an extension request, measured from acquisition and capped at the maximum. */
export function extendedCustody(
  acquiredAt: number,
  minutes: number,
  maximumCustodyExpiresAt: number,
): number {
  return Math.min(acquiredAt + minutes * MINUTE_MS, maximumCustodyExpiresAt);
}
