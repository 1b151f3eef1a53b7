/**
 * Custody facts as tool data: custody counts in epoch milliseconds, data speaks ISO timestamps;
 * renewal failures are surfaced, not swallowed.
 */
import { z } from "zod";
import type { CustodyWarnings, RenewalFailure } from "../custody/mod.ts";
import { Codes } from "../shared/errors.ts";

/** Epoch milliseconds of a daemon timestamp. */
export function epoch(timestamp: string): number {
  return Date.parse(timestamp);
}

/** ISO form of epoch milliseconds, as the daemon writes them. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function custodyView(held: { custodyExpiresAt: number; maximumCustodyExpiresAt: number }) {
  return {
    custodyExpiresAt: iso(held.custodyExpiresAt),
    maximumCustodyExpiresAt: iso(held.maximumCustodyExpiresAt),
  };
}

export function failureView(failure: RenewalFailure | undefined) {
  return failure ? { renewalFailure: renewalFailureOf(failure) } : {};
}

function renewalFailureOf({ code, message, at }: RenewalFailure) {
  return { code, message, at: iso(at) };
}

/** At most this many credentials are listed per kind of trouble; the counts say the rest. */
const MAX_LISTED = 5;

const listed = z.object({
  kind: z.enum(["lease", "activation", "launcher"]),
  /** Lease, activation or launcher-operation id, as the tool that acquired it returned. */
  id: z.string(),
  renewalFailure: z.object({ code: z.string(), message: z.string(), at: z.string() }),
});

/**
 * `custodyWarning` of a result envelope: small, and only while something is wrong. A schema,
 * so a program reading a result back (doctor, the tests) checks it instead of trusting it.
 */
export const custodyWarningSchema = z.object({
  message: z.string(),
  atRiskCount: z.int(),
  /** The credentials at risk, soonest expiry first, each with when it expires. */
  atRisk: z.array(listed.extend({ expiresAt: z.string() })),
  lapsedCount: z.int(),
  lapsed: z.array(listed),
});

export type CustodyWarningView = z.output<typeof custodyWarningSchema>;

export function custodyWarningView(warnings: CustodyWarnings): CustodyWarningView {
  const atRisk = [...warnings.atRisk].sort((a, b) => a.expiresAt - b.expiresAt);
  const parts: string[] = [];
  const risky = atRisk.length;
  if (risky > 0) {
    parts.push(
      `${count(risky)} held by this bridge may lapse: the daemon has not answered or has ` +
        `refused ${risky === 1 ? "its" : "their"} renewal (renewalFailure says when and why). ` +
        "A lapsed lease's port can go to another agent: confirm a leased port as soon as its " +
        "listener is up.",
    );
  }
  const lapsed = warnings.lapsed.length;
  if (lapsed > 0) {
    parts.push(
      `${count(lapsed)} lapsed before ${lapsed === 1 ? "it" : "they"} could be renewed; ` +
        `${lapsed === 1 ? "its handle answers" : "their handles answer"} ` +
        `${Codes.credentialUnavailable} from now on.`,
    );
  }
  return {
    message: parts.join(" "),
    atRiskCount: atRisk.length,
    atRisk: atRisk.slice(0, MAX_LISTED).map((item) => ({
      kind: item.kind,
      id: item.id,
      expiresAt: iso(item.expiresAt),
      renewalFailure: renewalFailureOf(item.failure),
    })),
    lapsedCount: warnings.lapsed.length,
    lapsed: warnings.lapsed.slice(0, MAX_LISTED).map((item) => ({
      kind: item.kind,
      id: item.id,
      renewalFailure: renewalFailureOf(item.failure),
    })),
  };
}

/** The words the result's summary line ends with. */
export function warningSummary(view: CustodyWarningView): string {
  const counts = [
    view.atRiskCount > 0 ? `${view.atRiskCount} at risk` : "",
    view.lapsedCount > 0 ? `${view.lapsedCount} lapsed` : "",
  ].filter(Boolean).join(", ");
  return `Custody warning: held credentials ${counts} (see custodyWarning).`;
}

function count(n: number): string {
  return n === 1 ? "1 credential" : `${n} credentials`;
}
