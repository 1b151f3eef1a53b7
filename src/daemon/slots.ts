/**
 * A counting semaphore with a FIFO of waiters that leave when their signal aborts. It caps
 * daemon requests open at once: `fetch` has no cap on connections per host, so without it a
 * burst of calls opens one connection (and one file descriptor) per call.
 */
export class Slots {
  #free: number;
  #waiting: { grant: () => void; signal?: AbortSignal }[] = [];

  constructor(readonly size: number) {
    this.#free = size;
  }

  get inUse(): number {
    return this.size - this.#free;
  }

  /** Resolves with a release function once a slot is ours; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        signal,
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(this.#releaser());
        },
      };
      const onAbort = () => {
        const at = this.#waiting.indexOf(waiter);
        if (at !== -1) this.#waiting.splice(at, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next.grant();
      else this.#free++;
    };
  }
}
