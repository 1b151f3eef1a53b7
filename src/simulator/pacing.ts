// How fast the simulated daemon answers: one request at a time touches state (like the daemon's
// single SQLite writer), `latencyMs` added to every state-changing request, and in `serial`
// mode the latency too is served one request at a time in arrival order, as the real daemon
// serves everything (it takes about a second per acquire on a busy machine).

export interface PacingOptions {
  /** Added to every state-changing request (a POST not marked read-only), renewals included. */
  latencyMs?: number;
  /** Serve one request at a time, in arrival order, latency included. */
  serial?: boolean;
  /** Test seam for the latency wait. */
  sleep?: (ms: number) => Promise<void>;
}

/** Requests admitted and not yet answered, and the most there ever were at once. */
export interface QueueStats {
  depth: number;
  peak: number;
  served: number;
}

export class Pacing {
  readonly latencyMs: number;
  readonly serial: boolean;
  readonly stats: QueueStats = { depth: 0, peak: 0, served: 0 };
  readonly #sleep?: (ms: number) => Promise<void>;
  #queue: Promise<unknown> = Promise.resolve();
  /** Latency waits in progress, cut short when the simulator closes. */
  #waits = new Set<() => void>();
  #closing = false;

  constructor(options: PacingOptions = {}) {
    const latency = options.latencyMs ?? 0;
    if (!Number.isFinite(latency) || latency < 0) {
      throw new RangeError("simulator: latencyMs must be a non-negative number");
    }
    this.latencyMs = latency;
    this.serial = options.serial ?? false;
    this.#sleep = options.sleep;
  }

  /** Runs `dispatch` in turn, after the latency a state-changing request owes. */
  async run<T>(changesState: boolean, dispatch: () => Promise<T>): Promise<T> {
    const stats = this.stats;
    stats.depth++;
    stats.peak = Math.max(stats.peak, stats.depth);
    const latency = changesState ? this.latencyMs : 0;
    try {
      if (this.serial) {
        return await this.#inTurn(async () => {
          await this.#wait(latency);
          return await dispatch();
        });
      }
      await this.#wait(latency);
      return await this.#inTurn(dispatch);
    } finally {
      stats.depth--;
      stats.served++;
    }
  }

  /** Lets every queued request through at once (the simulator is closing). */
  close(): void {
    this.#closing = true;
    for (const release of [...this.#waits]) release();
  }

  #inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(fn, fn);
    this.#queue = next.catch(() => {});
    return next;
  }

  #wait(ms: number): Promise<void> {
    if (ms <= 0 || this.#closing) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        if (timer !== undefined) clearTimeout(timer);
        this.#waits.delete(done);
        resolve();
      };
      this.#waits.add(done);
      if (this.#sleep) this.#sleep(ms).then(done, done);
      else timer = setTimeout(done, ms);
    });
  }
}
