/**
 * Which lane a daemon request waits in. The protocol takes a held secret only on custody
 * routes (lease and activation renew/confirm/abandon/skip, launcher renew/complete), in the
 * fields below, so a body that carries one IS custody traffic: the lane follows from the
 * request itself and no route can be left in the wrong one.
 */
import { type Lane, WORK_LANE } from "./slots.ts";
import { isObject } from "../shared/json.ts";

/** Top-level body fields in which the protocol takes a lease token or launcher credential. */
const SECRET_FIELDS = ["leaseToken", "credential"] as const;

/** Whether `body` sends a held credential (top level, or in an activation renewal's list). */
export function carriesCredential(body: Record<string, unknown>): boolean {
  if (SECRET_FIELDS.some((field) => typeof body[field] === "string")) return true;
  const leases = body.leases;
  return Array.isArray(leases) &&
    leases.some((lease) => isObject(lease) && typeof lease.leaseToken === "string");
}

/**
 * The lane of a POST. Custody traffic is due by `dueAt` (its credential's expiry); without
 * one (a settlement) it is due now, ahead of renewals that can still wait.
 */
export function laneOf(body: Record<string, unknown>, dueAt?: number): Lane {
  if (!carriesCredential(body)) return WORK_LANE;
  return { kind: "custody", dueAt: dueAt ?? Date.now() };
}
