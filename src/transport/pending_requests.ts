/**
 * Requests taken from stdin and not yet answered or cancelled, and the bounds on them. Each
 * pending request keeps its parsed message alive in the SDK (a tool call its arguments too),
 * so they are bounded by count per kind and, together, by what their frames cost parsed
 * (frame_scan.ts): bytes alone would let four 1 MiB frames of empty objects hold 85 MiB.
 * - tool calls by count: exactly what the call limiter runs or queues;
 * - other requests (ping, tools/list, …) are answered at once, but a flood of them read in one
 *   go would all be in flight together; a small bound keeps their garbage short-lived.
 * The stdio transport takes the next request from stdin only when `admits` says so.
 */
import type { RequestId } from "./frames.ts";
import { MAX_IN_FLIGHT, MAX_WAITING } from "./call_limiter.ts";

export interface PendingLimits {
  maxCalls: number;
  maxOthers: number;
  /** Parse cost of the frames of all pending requests together (one alone always passes). */
  maxCost: number;
  /** A frame costing at most this is bounded by count only (any ordinary request). */
  smallCost: number;
}

const MiB = 1024 * 1024;

/**
 * By cost: four tool calls of the largest frame we read when it is text (2 MiB each parsed),
 * or one frame at the value bound (about 8 MiB). Small frames count only by number, so a ping
 * never waits behind large calls: 192 of them cost under 3 MiB together.
 */
export const PENDING_LIMITS: Readonly<PendingLimits> = {
  maxCalls: MAX_IN_FLIGHT + MAX_WAITING,
  maxOthers: 64,
  maxCost: 8 * MiB,
  smallCost: 16 * 1024,
};

const TOOL_CALL = "tools/call";

export class PendingRequests {
  #limits: PendingLimits;
  /** Parse cost of each pending request, tool calls and others apart. */
  #calls = new Map<RequestId, number>();
  #others = new Map<RequestId, number>();
  #cost = 0;
  #changed: (() => void)[] = [];

  constructor(limits: PendingLimits = PENDING_LIMITS) {
    this.#limits = limits;
  }

  /** All pending requests. */
  get size(): number {
    return this.#calls.size + this.#others.size;
  }

  /** Pending tool calls, and the parse cost of every pending request's frame. */
  get calls(): { count: number; cost: number } {
    return { count: this.#calls.size, cost: this.#cost };
  }

  /**
   * Whether a request may be taken now. One alone always may, whatever its cost (a frame is
   * bounded on its own); otherwise its kind's count and, unless it is small, the shared cost.
   */
  admits(method: string, cost: number): boolean {
    if (this.size === 0) return true;
    const limits = this.#limits;
    const counted = method === TOOL_CALL
      ? this.#calls.size < limits.maxCalls
      : this.#others.size < Math.max(1, limits.maxOthers);
    return counted && (cost <= limits.smallCost || this.#cost + cost <= limits.maxCost);
  }

  add(id: RequestId, method: string, cost: number): void {
    this.remove(id); // a host reusing a pending id replaces it, it does not count twice
    (method === TOOL_CALL ? this.#calls : this.#others).set(id, cost);
    this.#cost += cost;
  }

  /** Forgets an answered or cancelled request; returns whether it was pending. */
  remove(id: RequestId): boolean {
    const cost = this.#calls.get(id) ?? this.#others.get(id);
    if (cost === undefined) return false;
    if (!this.#calls.delete(id)) this.#others.delete(id);
    this.#cost -= cost;
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
