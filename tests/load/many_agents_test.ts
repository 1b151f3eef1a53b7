/**
 * No dead lease reported alive: 20 real bridges on one simulated daemon that serves one
 * request at a time and takes a second per change (`--latency 1000 --serial`, like the real
 * daemon on a busy machine), at the daemon's DEFAULT lease TTL of 15 s. The daemon sets a
 * lease's expiry from the start of the acquire, as the real one does, so an acquire that waited
 * its turn can arrive with its lease expired or about to.
 *
 * All acquire at once; an agent told `portreeve_lease_lapsed` acquires again after a random
 * back-off for four TTLs. Each agent holds what it got through three TTLs, firing bursts of
 * reads, checks it, then starts a real listener process and confirms with its PID.
 *
 * 20 pending leases cannot all be kept here: even renewed once per TTL they need 1.3 changes a
 * second from a daemon that makes one, and 20 acquires at once queue for 20 s, longer than the
 * TTL. So what is asserted is what the bridge owes the agent (from the daemon's own history and
 * every result each agent got): no lease reported held that the daemon held no more at that
 * moment; every lease reported held still held at the check three TTLs on, or its agent told it
 * lapsed by then; no result after a lease ended silent about it; no port held by two leases;
 * every call answered once. How many leases were kept is printed, never asserted.
 */
import assert from "node:assert/strict";
import { runManyAgents } from "../support/many_agents.ts";
import { reportFigure } from "../support/reliability_figures.ts";

const BRIDGES = 20;
/** The daemon's own default lease TTL: the run leaves the setting alone and checks it. */
const DEFAULT_TTL_MS = 15_000;
const HOLD_TTLS = 3;

/** The only errors a busy daemon may cause: lapses told, slow reads, a check after a lapse. */
const EXPECTED_ERRORS = new Set([
  "acquire:portreeve_lease_lapsed",
  "read:portreeve_unavailable",
  "check:portreeve_unavailable",
  "confirm:portreeve_credential_unavailable",
]);

Deno.test({
  name:
    `${BRIDGES} bridges on a one-request-at-a-time daemon at its default TTL: no dead lease reported alive, no port held twice`,
  async fn() {
    const report = await runManyAgents({
      bridges: BRIDGES,
      holdTtls: HOLD_TTLS,
      retryTtls: 4,
      latencyMs: 1_000,
      burst: 12,
    });
    const { latency, ...rest } = report;
    console.log(`many agents: ${JSON.stringify(rest)}`);
    console.log(`many agents latency (ms): ${JSON.stringify(latency)}`);
    const { p50, max } = latency.acquire;
    await reportFigure(
      "many agents on one slow daemon",
      `${report.reportedHeld} leases reported held, ${report.heldDead.length} of them expired; ` +
        `${report.kept} kept three TTLs, ${report.lapsedReported} lapsed and told ` +
        `(longest ${(report.longestUntoldMs / 1000).toFixed(1)} s after), ` +
        `${report.lapsedUnreported.length} not told, ${report.silent} silent results; ` +
        `${report.lapsedOnArrival} acquires lapsed on arrival; ${report.doubleHeld} ports held twice; ` +
        `${
          report.calls.toLocaleString("en-US")
        } calls, ${report.notAnsweredOnce} not answered once; ` +
        `acquire p50 ${(p50 / 1000).toFixed(1)} s, max ${(max / 1000).toFixed(1)} s; ` +
        `daemon queue peak ${report.peakQueue}`,
      `${BRIDGES} bridges, one change a second, default ${
        DEFAULT_TTL_MS / 1000
      } s TTL held ${HOLD_TTLS}×`,
    );
    assert.equal(report.ttlMs, DEFAULT_TTL_MS, "the daemon's default lease TTL");
    assert.deepEqual(report.heldDead, [], "no lease reported held once the daemon had expired it");
    assert.deepEqual(
      report.lapsedUnreported,
      [],
      "every lease reported held was still held three TTLs on, or its agent was told it lapsed",
    );
    assert.equal(report.silent, 0, "no result after a lease ended was silent about it");
    assert.equal(report.toldTooSoon, 0, "no lease told lapsed while the daemon still held it");
    assert.equal(report.doubleHeld, 0, "no port held by two leases at once");
    assert.equal(report.bindFailures, 0, "every listener got and kept its port");
    assert.equal(report.kept + report.lapsedReported, report.reportedHeld, "each lease accounted");
    assert.equal(report.notAnsweredOnce, 0, "every call answered exactly once");
    assert.equal(report.bridgeBugs, 0, "no result was portreeve_internal (a bridge bug)");
    const unexpected = Object.keys(report.errors).filter((key) => !EXPECTED_ERRORS.has(key));
    assert.deepEqual(unexpected, [], "no other error");
    assert.equal(report.badExits, 0);
  },
});
