/**
 * What agents were told about their leases, judged against the daemon's own history
 * (lease_history.ts): a lease reported held must be held by the daemon at that moment; by the
 * agent's check three TTLs later it must still be held, or the agent must have been told it
 * lapsed; and no result the agent got after its lease ended may be silent about it (each names
 * it at risk, until one says it lapsed).
 */
import { heldAt, type LeaseHistory } from "./lease_history.ts";

/** One tool result as an agent saw it: when it arrived and which leases its warning named. */
export interface SeenResult {
  at: number;
  atRisk: string[];
  lapsed: string[];
}

/** A lease reported held to an agent (a successful acquire), and the agent's later check. */
export interface HeldReport {
  agent: string;
  leaseId: string;
  port: number;
  /** When the result saying it was held arrived. */
  at: number;
  /** When the agent made its final check (three TTLs on), if it got that far. */
  checkedAt?: number;
}

export interface ReportFindings {
  reportedHeld: number;
  /** Reported held while the daemon no longer held them (their expiry had passed). */
  heldDead: string[];
  /** Still held by the daemon at the agent's check (or confirmed by then). */
  kept: number;
  /** Ended before the check, and the agent was told it lapsed by then. */
  lapsedReported: number;
  /** Told it lapsed while the daemon still held it past the check (given up too soon). */
  toldTooSoon: number;
  /** Ended before the check without the agent being told by then. */
  lapsedUnreported: string[];
  /** Results that arrived after a lease ended, before the agent was told, naming nothing. */
  silent: number;
  /** The longest time from a lease's end to the result that told its agent (ms). */
  longestUntoldMs: number;
}

/** Results arriving this soon after an expiry may have been written just before it. */
const IN_TRANSIT_MS = 100;

export function judgeReports(
  history: LeaseHistory,
  reports: readonly HeldReport[],
  resultsOf: (agent: string) => readonly SeenResult[],
): ReportFindings {
  const findings: ReportFindings = {
    reportedHeld: reports.length,
    heldDead: [],
    kept: 0,
    lapsedReported: 0,
    toldTooSoon: 0,
    lapsedUnreported: [],
    silent: 0,
    longestUntoldMs: 0,
  };
  for (const report of reports) {
    const lease = history.leases.get(report.leaseId);
    if (!lease || !heldAt(lease, report.at)) {
      findings.heldDead.push(report.leaseId);
      continue;
    }
    const results = resultsOf(report.agent).filter((r) => r.at > report.at);
    const told = results.find((r) => r.lapsed.includes(report.leaseId))?.at;
    const checkedAt = report.checkedAt ?? told ?? Infinity;
    if (lease.end === Infinity || lease.end > checkedAt) {
      if (told === undefined) findings.kept++;
      else findings.toldTooSoon++;
      continue;
    }
    if (told === undefined || told > checkedAt) {
      findings.lapsedUnreported.push(report.leaseId);
      continue;
    }
    findings.lapsedReported++;
    findings.longestUntoldMs = Math.max(findings.longestUntoldMs, told - lease.end);
    for (const result of results) {
      if (result.at <= lease.end + IN_TRANSIT_MS || result.at >= told) continue;
      if (!result.atRisk.includes(report.leaseId)) findings.silent++;
    }
  }
  return findings;
}
