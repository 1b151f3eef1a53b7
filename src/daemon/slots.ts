/**
 * A counting semaphore with two lanes, capping daemon requests open at once: `fetch` has no
 * cap on connections per host, so without it a burst of calls opens one connection (and one
 * file descriptor) per call.
 *
 * Custody traffic (renewals and settlements of held credentials) has a lane of its own: it may
 * use every slot, while new work leaves `reservedForCustody` of them free, and a freed slot goes
 * to waiting custody first, the soonest-due first. So a bridge's renewals never wait behind its
 * own new work; new work waits in arrival order. Waiters leave when their signal aborts.
 */

/** Which queue a request waits in. */
export type Lane =
  | { kind: "work" }
  /** `dueAt`: epoch ms by which it must reach the daemon (the credential's expiry). */
  | { kind: "custody"; dueAt: number };

export const WORK_LANE: Lane = { kind: "work" };

interface Waiter {
  lane: Lane;
  grant: () => void;
}

export class Slots {
  #inUse = { work: 0, custody: 0 };
  #custodyWaiting: Waiter[] = [];
  #workWaiting: Waiter[] = [];

  constructor(readonly size: number, readonly reservedForCustody = 0) {
    if (!(size >= 1 && reservedForCustody >= 0 && reservedForCustody < size)) {
      throw new RangeError("slots: need size >= 1 and 0 <= reservedForCustody < size");
    }
  }

  get inUse(): number {
    return this.#inUse.work + this.#inUse.custody;
  }

  /** Requests waiting for a slot, per lane. */
  get waiting(): { work: number; custody: number } {
    return { work: this.#workWaiting.length, custody: this.#custodyWaiting.length };
  }

  /** Resolves with a release function once a slot is ours; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal, lane: Lane = WORK_LANE): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    // Arrivals never overtake waiters of their own lane.
    if (this.#queueOf(lane).length === 0 && this.#canStart(lane)) {
      return Promise.resolve(this.#take(lane));
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        lane,
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(this.#take(lane));
        },
      };
      const onAbort = () => {
        const queue = this.#queueOf(lane);
        const at = queue.indexOf(waiter);
        if (at !== -1) queue.splice(at, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#enqueue(waiter);
    });
  }

  #queueOf(lane: Lane): Waiter[] {
    return lane.kind === "custody" ? this.#custodyWaiting : this.#workWaiting;
  }

  #canStart(lane: Lane): boolean {
    if (this.inUse >= this.size) return false;
    return lane.kind === "custody" || this.#inUse.work < this.size - this.reservedForCustody;
  }

  #enqueue(waiter: Waiter): void {
    if (waiter.lane.kind === "work") {
      this.#workWaiting.push(waiter);
      return;
    }
    const due = waiter.lane.dueAt;
    const queue = this.#custodyWaiting;
    // Sorted by due time; a new waiter goes after every one due no later (arrival order).
    let at = queue.length;
    while (at > 0 && dueOf(queue[at - 1]) > due) at--;
    queue.splice(at, 0, waiter);
  }

  #take(lane: Lane): () => void {
    this.#inUse[lane.kind]++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inUse[lane.kind]--;
      this.#dispatch();
    };
  }

  /** Hands free slots to waiting custody first (soonest due), then to work in arrival order. */
  #dispatch(): void {
    while (this.#custodyWaiting.length > 0 && this.#canStart(this.#custodyWaiting[0].lane)) {
      this.#custodyWaiting.shift()!.grant();
    }
    while (this.#workWaiting.length > 0 && this.#canStart(WORK_LANE)) {
      this.#workWaiting.shift()!.grant();
    }
  }
}

function dueOf(waiter: Waiter): number {
  return waiter.lane.kind === "custody" ? waiter.lane.dueAt : Infinity;
}
