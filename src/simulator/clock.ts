// A controllable clock: a base clock (real time by default) plus an offset tests can advance.
export interface Clock {
  now(): number;
}

export class SimClock implements Clock {
  #base: Clock;
  #offset = 0;

  constructor(base: Clock = { now: () => Date.now() }) {
    this.#base = base;
  }

  now(): number {
    return this.#base.now() + this.#offset;
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new RangeError("advance() needs a non-negative number");
    }
    this.#offset += ms;
  }
}
