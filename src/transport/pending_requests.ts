/**
 * Requests taken from stdin and not yet answered or cancelled, and the bounds on them. Each
 * pending request keeps its context alive in the SDK (a tool call its arguments too), so:
 * - tool calls are bounded by count and by the bytes of their frames (their arguments, in
 *   practice): 128 waiting calls of 1 MiB would otherwise hold 128 MiB;
 * - other requests (ping, tools/list, …) are answered at once, but a flood of them read in one
 *   go would all be in flight together; a small bound keeps their garbage short-lived.
 * The stdio transport takes the next request from stdin only when `admits` says so.
 */
import type { RequestId } from "./frames.ts";
import { MAX_IN_FLIGHT, MAX_WAITING } from "./call_limiter.ts";

export interface PendingLimits {
  maxCalls: number;
  maxCallBytes: number;
  maxOthers: number;
}

/**
 * Calls by count: exactly what the call limiter runs or queues, so a host that pipelines is
 * slowed down rather than refused as busy. By bytes: four calls of the largest frame we read (a
 * call to the daemon holds its arguments two or three times over while its request is sent).
 */
export const PENDING_LIMITS: Readonly<PendingLimits> = {
  maxCalls: MAX_IN_FLIGHT + MAX_WAITING,
  maxCallBytes: 4 * 1024 * 1024,
  maxOthers: 64,
};

const TOOL_CALL = "tools/call";

export class PendingRequests {
  #limits: PendingLimits;
  /** Frame bytes of each pending tool call. */
  #calls = new Map<RequestId, number>();
  #callBytes = 0;
  #others = new Set<RequestId>();
  #changed: (() => void)[] = [];

  constructor(limits: PendingLimits = PENDING_LIMITS) {
    this.#limits = limits;
  }

  /** All pending requests. */
  get size(): number {
    return this.#calls.size + this.#others.size;
  }

  get calls(): { count: number; bytes: number } {
    return { count: this.#calls.size, bytes: this.#callBytes };
  }

  /**
   * Whether a request may be taken now. A tool call alone always may, whatever its size (a
   * frame is bounded on its own); so may a request of another kind when none of that kind pends.
   */
  admits(method: string, bytes: number): boolean {
    const limits = this.#limits;
    if (method !== TOOL_CALL) return this.#others.size < Math.max(1, limits.maxOthers);
    if (this.#calls.size === 0) return true;
    return this.#calls.size < limits.maxCalls && this.#callBytes + bytes <= limits.maxCallBytes;
  }

  add(id: RequestId, method: string, bytes: number): void {
    this.remove(id); // a host reusing a pending id replaces it, it does not count twice
    if (method === TOOL_CALL) {
      this.#calls.set(id, bytes);
      this.#callBytes += bytes;
    } else {
      this.#others.add(id);
    }
  }

  /** Forgets an answered or cancelled request; returns whether it was pending. */
  remove(id: RequestId): boolean {
    const bytes = this.#calls.get(id);
    if (bytes !== undefined) {
      this.#calls.delete(id);
      this.#callBytes -= bytes;
    } else if (!this.#others.delete(id)) {
      return false;
    }
    const changed = this.#changed;
    this.#changed = [];
    for (const wake of changed) wake();
    return true;
  }

  /** Resolves at the next `remove` (the caller checks `admits` again). */
  changed(): Promise<void> {
    return new Promise((resolve) => this.#changed.push(resolve));
  }
}
