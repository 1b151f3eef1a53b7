// A controllable clock: a base clock (real time by default) plus an offset tests can advance.
export interface Clock {
  now(): number;
}

/**
 * When what the daemon grants runs out (pending leases, ephemeral assignments, receipts,
 * launcher and activation deadlines, a reclaim's grace): `clock`, when the clock passes its
 * time, as the real daemon does; `advance`, only when the test moves the clock past it
 * (`control.advance`, `control.expireLease`; `startSimulator`'s default). Timestamps follow the clock either way, so a
 * bridge reads the same expiries; but a machine too busy to keep up between a test's steps
 * cannot make anything run out.
 */
export type Lapses = "clock" | "advance";

export class SimClock implements Clock {
  #base: Clock;
  #offset = 0;
  /** Under `advance`: the time the test last moved the clock to (the start, at first). */
  #held?: number;

  constructor(base: Clock = { now: () => Date.now() }, lapses: Lapses = "clock") {
    this.#base = base;
    if (lapses === "advance") this.#held = this.now();
  }

  now(): number {
    return this.#base.now() + this.#offset;
  }

  /**
   * The time things lapse by: now, or under `advance` the time the test last moved the clock
   * to (never later than now, should the base clock be set back).
   */
  lapseNow(): number {
    const now = this.now();
    return this.#held === undefined ? now : Math.min(now, this.#held);
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new RangeError("advance() needs a non-negative number");
    }
    this.#offset += ms;
    if (this.#held !== undefined) this.#held = this.now();
  }
}
