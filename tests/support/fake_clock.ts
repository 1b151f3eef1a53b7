import type { Clock } from "../../src/custody/clock.ts";

interface FakeTimer {
  readonly at: number;
  readonly fn: () => void;
}

/**
 * Manual clock for tests. `await clock.advance(ms)` fires due timers one at a time in time
 * order (ties in scheduling order), letting promise chains settle after each, so renewals
 * started by a timer finish before the next timer fires.
 */
export class FakeClock implements Clock {
  #now: number;
  #nextId = 1;
  readonly #timers = new Map<number, FakeTimer>();

  /**
   * @param start initial epoch milliseconds
   * @param flushRounds microtask turns granted after each timer; raise it for renewers with
   *   deeper promise chains
   */
  constructor(
    start: number = Date.UTC(2026, 10, 30, 12, 0, 0),
    readonly flushRounds: number = 100,
  ) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): number {
    const id = this.#nextId++;
    const delay = Number.isFinite(ms) ? Math.max(0, ms) : 0;
    this.#timers.set(id, { at: this.#now + delay, fn });
    return id;
  }

  clearTimeout(id: number): void {
    this.#timers.delete(id);
  }

  /** Number of scheduled, not yet fired timers. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Due instants of pending timers, soonest first. */
  get dueTimes(): number[] {
    return [...this.#timers.values()].map((t) => t.at).sort((a, b) => a - b);
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.#now + ms);
  }

  async advanceTo(target: number): Promise<void> {
    await this.flush();
    for (;;) {
      const next = this.#earliestDue(target);
      if (next === undefined) break;
      const [id, timer] = next;
      this.#timers.delete(id);
      this.#now = Math.max(this.#now, timer.at);
      timer.fn();
      await this.flush();
    }
    this.#now = Math.max(this.#now, target);
    await this.flush();
  }

  /** Lets pending promise continuations run (microtasks only; no real time passes). */
  async flush(rounds: number = this.flushRounds): Promise<void> {
    for (let i = 0; i < rounds; i++) await Promise.resolve();
  }

  #earliestDue(target: number): [number, FakeTimer] | undefined {
    let best: [number, FakeTimer] | undefined;
    for (const entry of this.#timers) {
      if (entry[1].at > target) continue;
      // Map iteration follows insertion (= id) order, so `<` keeps ties in scheduling order.
      if (best === undefined || entry[1].at < best[1].at) best = entry;
    }
    return best;
  }
}
