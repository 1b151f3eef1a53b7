/**
 * Slow is not gone: 20 real bridges (the bundle, under its real confinement flags) started
 * together on one simulated daemon that serves one request at a time and takes a second per
 * change (`--serial --latency 1000`, as the real daemon on a busy machine). Each sends one
 * lease_acquire and four reads at once, asking for progress. The queue this makes is longer
 * than any fixed deadline a client used to keep, so what is asserted is what the bridge owes
 * the agent while it waits: every read answered with data (none unavailable), every acquire a
 * definite outcome, progress heard meanwhile, no bridge bug, every bridge exiting cleanly.
 * Waits (p50/p95) and peak RSS per bridge are reported.
 */
import assert from "node:assert/strict";
import { bridgeArgs } from "../e2e/harness.ts";
import { runCrowd } from "../support/crowd.ts";
import { startSlowDaemon } from "../support/many_agents.ts";
import { exists } from "../support/processes.ts";
import { pollUntil } from "../support/timed.ts";
import { reportFigure } from "../support/reliability_figures.ts";

const BRIDGES = 20;
const READS = 4;

Deno.test({
  name:
    `${BRIDGES} bridges at once on a one-request-at-a-time daemon: every read answers with data, every acquire a definite outcome`,
  async fn() {
    const daemon = await startSlowDaemon(1_000);
    const { socketPath, workspace } = daemon;
    try {
      await pollUntil("the simulator's socket exists", () => exists(socketPath), 20_000);
      const report = await runCrowd({
        socketPath,
        bridges: BRIDGES,
        command: [Deno.execPath(), ...bridgeArgs({ socketPath })],
        workspace,
        label: "load",
        reads: READS,
      });
      console.log(`crowd: ${JSON.stringify(report)}`);
      const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
      const { acquire, read } = report.waitsMs;
      await reportFigure(
        "a crowd on one slow daemon",
        `${report.reads.withData} of ${report.reads.sent} reads answered with data, ` +
          `${report.reads.unavailable} unavailable; ${report.acquires.granted} of ` +
          `${report.acquires.sent} acquires granted, ${report.acquires.unknown} unknown; ` +
          `waits p50/p95: read ${s(read.p50)}/${s(read.p95)}, acquire ${s(acquire.p50)}/` +
          `${s(acquire.p95)}; ${report.progressNotes} progress notes; peak RSS per bridge ` +
          `${Math.round(report.peakRssKiB.p50 / 1024)} MiB (max ${
            Math.round(report.peakRssKiB.max / 1024)
          })`,
        `${BRIDGES} bridges, one change a second`,
      );
      assert.equal(report.reads.sent, BRIDGES * READS, "every read answered");
      assert.equal(report.reads.unavailable, 0, "no read unavailable: slow is not gone");
      assert.equal(report.reads.withData, BRIDGES * READS, JSON.stringify(report.reads.errors));
      assert.equal(report.acquires.sent, BRIDGES, "every acquire answered");
      assert.equal(report.acquires.unknown, 0, "every acquire a definite outcome");
      assert.ok(report.progressNotes > 0, "the hosts were told they wait");
      assert.equal(report.bridgeBugs, 0, "no result was portreeve_internal");
      assert.equal(report.badExits, 0, "every bridge exited 0");
    } finally {
      daemon.process.kill("SIGTERM");
      await daemon.process.status;
      await daemon.stderr;
      await Deno.remove(daemon.dir, { recursive: true });
    }
  },
});
