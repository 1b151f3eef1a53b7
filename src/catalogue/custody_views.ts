/** Custody facts as tool data: ISO timestamps, and renewal failures surfaced, not swallowed. */
import type { RenewalFailure } from "../custody/mod.ts";
import { iso } from "./daemon_calls.ts";

export function custodyView(held: { custodyExpiresAt: number; maximumCustodyExpiresAt: number }) {
  return {
    custodyExpiresAt: iso(held.custodyExpiresAt),
    maximumCustodyExpiresAt: iso(held.maximumCustodyExpiresAt),
  };
}

export function failureView(failure: RenewalFailure | undefined) {
  return failure
    ? { renewalFailure: { code: failure.code, message: failure.message, at: iso(failure.at) } }
    : {};
}
