/**
 * How long the daemon takes to answer lately, as this bridge sees it: the slowest round trip
 * that ended within the window, or the age of the oldest request still unanswered, whichever
 * is longer. A daemon that serves one request at a time makes this the length of its queue,
 * which is what custody needs to send renewals early enough.
 */
export const DELAY_WINDOW_MS = 60_000;
const MAX_SAMPLES = 64;

export class DaemonDelays {
  /** Ended round trips, oldest first (bounded). */
  #samples: { endedAt: number; ms: number }[] = [];
  /** Start times of requests still open. */
  #open = new Map<number, number>();
  #nextId = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Marks a request sent; call the returned function once it is answered (or failed). */
  start(): () => void {
    const id = this.#nextId++;
    this.#open.set(id, this.now());
    return () => {
      const startedAt = this.#open.get(id);
      if (startedAt === undefined) return;
      this.#open.delete(id);
      const endedAt = this.now();
      this.#samples.push({ endedAt, ms: endedAt - startedAt });
      if (this.#samples.length > MAX_SAMPLES) this.#samples.shift();
    };
  }

  /** Milliseconds: the recent worst round trip, or the oldest open request's age. */
  recentMs(): number {
    const now = this.now();
    let worst = 0;
    for (const { endedAt, ms } of this.#samples) {
      if (now - endedAt <= DELAY_WINDOW_MS) worst = Math.max(worst, ms);
    }
    for (const startedAt of this.#open.values()) worst = Math.max(worst, now - startedAt);
    return worst;
  }
}
