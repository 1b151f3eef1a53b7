/**
 * Bounds tool calls: at most `maxInFlight` run at once, up to `maxWaiting` more wait in FIFO
 * order, and a call beyond that is refused at once with a retryable busy error (the host
 * backs off; memory never grows with the backlog). The stdio transport holds stdin before a
 * host that merely pipelines gets there; the refusal is for what it cannot see, such as
 * cancelled calls still unwinding in their slots while new ones arrive. A waiting call starts only while the
 * output gate is open, so a host that stops reading does not have answers piled up for it.
 */
import { BridgeError, Codes } from "../shared/errors.ts";
import type { Gate } from "./valve.ts";

export const MAX_IN_FLIGHT = 32;
export const MAX_WAITING = 96;

interface LimiterOptions {
  maxInFlight?: number;
  maxWaiting?: number;
  /** Closed while stdout is backed up; waiting calls hold until it opens. */
  output?: Gate;
}

interface Waiter {
  start: () => void;
  signal?: AbortSignal;
}

export class CallLimiter {
  readonly maxInFlight: number;
  readonly maxWaiting: number;
  #output?: Gate;
  #running = 0;
  #waiting: Waiter[] = [];
  #watchingOutput = false;

  constructor(options: LimiterOptions = {}) {
    this.maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
    this.maxWaiting = options.maxWaiting ?? MAX_WAITING;
    this.#output = options.output;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Runs `task` within the bounds; rejects with `portreeve_bridge_busy` when they are full. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.#canStart()) {
      this.#running++;
    } else {
      if (this.#waiting.length >= this.maxWaiting) throw this.#busy();
      await this.#wait(signal); // its slot is counted when it is started
    }
    try {
      return await task();
    } finally {
      this.#running--;
      this.#next();
    }
  }

  #canStart(): boolean {
    return this.#running < this.maxInFlight && (this.#output?.isOpen ?? true) &&
      this.#waiting.length === 0;
  }

  #wait(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        signal,
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      // A cancelled call leaves the queue at once; the SDK drops its answer anyway.
      const onAbort = () => {
        const at = this.#waiting.indexOf(waiter);
        if (at !== -1) this.#waiting.splice(at, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
      this.#next();
    });
  }

  /** Starts waiting calls while there is a free slot and stdout can take their answers. */
  #next(): void {
    while (this.#waiting.length > 0 && this.#running < this.maxInFlight) {
      if (this.#output && !this.#output.isOpen) {
        this.#watchOutput();
        break;
      }
      const waiter = this.#waiting.shift()!;
      // Counted here, before it resumes, so a burst of releases cannot pass the bound.
      this.#running++;
      waiter.start();
    }
  }

  #watchOutput(): void {
    if (this.#watchingOutput || !this.#output) return;
    this.#watchingOutput = true;
    this.#output.whenOpen().then(() => {
      this.#watchingOutput = false;
      this.#next();
    });
  }

  #busy(): BridgeError {
    return new BridgeError(
      Codes.bridgeBusy,
      `This bridge is busy: ${this.#running} tool calls are running and ${this.#waiting.length} ` +
        "are waiting, its limit. Nothing was sent to the daemon.",
      true,
      { inFlight: this.#running, waiting: this.#waiting.length, maxInFlight: this.maxInFlight },
    );
  }
}
