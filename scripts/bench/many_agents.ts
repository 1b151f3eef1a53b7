/**
 * The load test's scenario (tests/support/many_agents.ts) at bench scale: `bridges` real
 * bridges on a simulator at `--latency 1000 --serial`, all acquiring at once, each holding
 * its lease through three TTLs, then confirming with a real listener. Its figures become bench
 * rows; nothing is asserted.
 *
 * The lease TTL is the protocol's maximum, 120 s: each lease is renewed when a third of it is
 * left (~every 80 s), so 50 held leases cost ~0.6 change/s of a daemon that makes one a second.
 * Acquires queued behind the others wait for their answer (the bridge's bound is minutes); the
 * rows say how many agents got a lease. (The load test runs the daemon's default 15 s TTL, where
 * 20 leases cannot all be kept, and holds the bridge to telling each lapse.)
 */
import { type Latency, runManyAgents } from "../../tests/support/many_agents.ts";

const LEASE_TTL_MS = 120_000;
const HOLD_TTLS = 3;

export async function manyAgentsRows(
  bridges: number,
): Promise<[string, string, string, string][]> {
  const report = await runManyAgents({
    bridges,
    leaseTtlMs: LEASE_TTL_MS,
    holdTtls: HOLD_TTLS,
    retryTtls: 1,
    latencyMs: 1_000,
    burst: 12,
    log: (line) => console.error(`many agents: ${line}`),
  });
  const label = `${bridges} agents, 1 s/change serial daemon, TTL ${LEASE_TTL_MS / 1000} s`;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const spread = (l: Latency | undefined) =>
    l ? `${seconds(l.p50)} / ${seconds(l.p90)} / ${seconds(l.p99)} / ${seconds(l.max)}` : "-";
  const errors = Object.entries(report.errors).map(([code, n]) => `${code} ${n}`).join(", ");
  return [
    [
      `${label}: leases kept ${HOLD_TTLS} TTLs`,
      `${report.kept} of ${report.reportedHeld} held`,
      `${report.heldDead.length} reported held once expired; ${report.lapsedReported} lapsed ` +
      `and told, ${report.lapsedUnreported.length} not told; ${report.renewals} renewals, ` +
      `${report.confirmed} confirmed`,
      "all",
    ],
    [
      `${label}: ports held by two leases`,
      `${report.doubleHeld}`,
      `${report.bindFailures} listeners could not bind their port`,
      "0",
    ],
    [
      `${label}: calls answered exactly once`,
      `${report.calls - report.notAnsweredOnce} of ${report.calls}`,
      `${report.acquired} of ${bridges} agents got a lease (${report.lapsedOnArrival} acquires ` +
      `lapsed on arrival); errors by call: ${errors || "none"}`,
      "all",
    ],
    [
      `${label}: acquire latency p50/p90/p99/max`,
      spread(report.latency.acquire),
      `confirm ${spread(report.latency.confirm)}; read ${spread(report.latency.read)}`,
      "",
    ],
    [
      `${label}: peak daemon queue`,
      `${report.peakQueue} requests`,
      `${report.served} served in ${seconds(report.wallMs)}; ${report.warned} results warned`,
      "",
    ],
  ];
}
