/**
 * Custody never starves: 20 real bridges on one simulated daemon that serves one request at a
 * time and takes a second per change (`--latency 1000 --serial`, like the real daemon on a busy
 * machine). All acquire at once; each holds its pending lease through three TTLs while the
 * others acquire and every agent fires bursts of reads (more than its work slots), then confirms
 * with a real listener process. No lease may lapse, no port may be held twice, and every call is
 * answered exactly once. The same scenario at 50 bridges is in `deno task bench`.
 *
 * The lease TTL is 40 s. At one change per second the daemon must fit 20 acquires, 20 confirms
 * and every renewal: each lease is renewed when a third of its TTL (13 s) is left, about every
 * 27 s, so 20 held leases cost ~0.75 change/s and leave room for the rest; the 13 s margin
 * covers the daemon's queue (at most one request per bridge in flight, plus renewals). The
 * protocol's default 15 s TTL cannot work here at all: 20 leases need a renewal each every
 * < 15 s, more than 1.3 changes/s. Three TTLs of holding make the run about 2.5 minutes.
 */
import assert from "node:assert/strict";
import { runManyAgents } from "../support/many_agents.ts";
import { reportFigure } from "../support/reliability_figures.ts";

const BRIDGES = 20;
const LEASE_TTL_MS = 40_000;
const HOLD_TTLS = 3;

Deno.test({
  name: `${BRIDGES} bridges on a one-request-at-a-time daemon: no lapse, no port held twice`,
  async fn() {
    const report = await runManyAgents({
      bridges: BRIDGES,
      leaseTtlMs: LEASE_TTL_MS,
      holdTtls: HOLD_TTLS,
      latencyMs: 1_000,
      burst: 12,
    });
    const { latency, ...rest } = report;
    console.log(`many agents: ${JSON.stringify(rest)}`);
    console.log(`many agents latency (ms): ${JSON.stringify(latency)}`);
    const { p50, max } = latency.acquire;
    await reportFigure(
      "many agents on one slow daemon",
      `${report.lapses} lapses, ${report.doubleHeld} ports held twice, ${report.renewals} renewals; ` +
        `${
          report.calls.toLocaleString("en-US")
        } calls, ${report.notAnsweredOnce} not answered once; ` +
        `acquire p50 ${(p50 / 1000).toFixed(1)} s, max ${(max / 1000).toFixed(1)} s; ` +
        `daemon queue peak ${report.peakQueue}`,
      `${BRIDGES} bridges, one change a second, ${LEASE_TTL_MS / 1000} s TTL held ${HOLD_TTLS}×`,
    );
    assert.equal(report.acquired, BRIDGES, "every agent got a lease");
    assert.equal(report.confirmed, BRIDGES, "and confirmed it");
    assert.deepEqual(report.lapsedLeases, [], "no lease lapsed while its custody window was open");
    assert.equal(report.doubleHeld, 0, "no port held by two leases at once");
    assert.equal(report.bindFailures, 0, "every listener got and kept its port");
    assert.equal(report.notAnsweredOnce, 0, "every call answered exactly once");
    assert.equal(report.bridgeBugs, 0, "no result was portreeve_internal (a bridge bug)");
    // Reads wait in the same one-at-a-time queue behind changes, a second each: one may reach
    // the 15 s read deadline and be answered `portreeve_unavailable` (retryable). Nothing else
    // may fail, and never as the bridge's own bug.
    const { "read:portreeve_unavailable": slowReads = 0, ...others } = report.errors;
    assert.deepEqual(others, {}, "no acquire or confirm failed, no read failed otherwise");
    assert.ok(slowReads <= report.calls / 20, `${slowReads} reads timed out`);
    assert.equal(report.badExits, 0);
    assert.ok(
      report.shortestHoldMs >= HOLD_TTLS * LEASE_TTL_MS,
      `each lease was held pending through ${HOLD_TTLS} TTLs (${report.shortestHoldMs} ms)`,
    );
    assert.ok(report.renewals >= BRIDGES * HOLD_TTLS, `${report.renewals} renewals`);
  },
});
