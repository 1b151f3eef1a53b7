/**
 * Time on the simulated daemon of the fast suite's worlds (the e2e harness's `withSimulator`,
 * and the bridges unit tests build in process). The bridge runs on the real clock and reads each
 * expiry the daemon grants against it; this daemon's clock runs a day ahead, so by the bridge's
 * clock every lease, receipt and launcher deadline has a day left: however slow the machine, the
 * bridge never judges one lapsed and has no renewal due within a test. On the daemon's side
 * nothing runs out unless the test moves its clock (`lapses: "advance"`, see
 * src/simulator/clock.ts). Scenarios that are about real renewals and lapses (the reliability
 * and load suites) pass `REAL_TIME` instead.
 */
import type { Clock, Lapses } from "../../src/simulator/mod.ts";

export const DAY_MS = 86_400_000;

/** The real clock, shifted by a skew a test may change. */
export class DaemonClock implements Clock {
  #skewMs = DAY_MS;

  now(): number {
    return Date.now() + this.#skewMs; // timing-ok: a timestamp source; nothing here waits or measures
  }

  /** Sets the daemon's clock `ms` behind the bridge's (a daemon whose clock is slow). */
  behind(ms: number): void {
    this.#skewMs = -ms;
  }

  /** Back to a day ahead. */
  ahead(): void {
    this.#skewMs = DAY_MS;
  }

  /** Moves the daemon's clock on by `ms`, as `ms` of a slow machine's real time would. */
  pass(ms: number): void {
    this.#skewMs += ms;
  }
}

export interface DaemonTime {
  clock: Clock;
  lapses: Lapses;
}

/** The fast suite's daemon time: a day ahead, and nothing lapses unless the test advances it. */
export function testTime(): DaemonTime & { clock: DaemonClock } {
  return { clock: new DaemonClock(), lapses: "advance" };
}

/** The daemon's time as the real daemon keeps it: for scenarios that measure renewals, lapses. */
export const REAL_TIME: DaemonTime = { clock: { now: () => Date.now() }, lapses: "clock" };
