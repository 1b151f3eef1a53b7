/**
 * Per-process memory of what this bridge already did, for semantic idempotency: a repeated
 * settle (confirm, skip, abandon, complete) returns the recorded result instead of failing,
 * and a repeated acquire or begin for the same target returns the allocation it holds.
 * Calls on one key are single-flight: identical concurrent calls share one daemon request
 * (one of them reports `changed: true`); a call with other arguments waits its turn and is
 * then judged against what the first achieved. Bounded (oldest forgotten first) and never
 * persisted; it holds no secrets.
 */
import { BridgeError, Codes } from "../shared/errors.ts";
import { canonicalJson } from "../shared/json.ts";

export { canonicalJson };

interface Flight {
  fingerprint: string;
  promise: Promise<unknown>;
}

/** How an acquire or begin finds, replays and starts what it holds for one target. */
export interface TargetSteps<R, T> {
  /** Whether what `record` describes is still held by this process. */
  held(record: R): boolean;
  /** The result a repeat gets while it is held (`changed` is set to false). */
  replay(record: R): Promise<T> | T;
  /** Makes the daemon request; returns the result and what to remember for repeats. */
  start(): Promise<{ result: T; record: R }>;
  /** The error for a repeat with other arguments while the target is held. */
  conflict(record: R): BridgeError;
}

export class Memory {
  #entries = new Map<string, unknown>();
  #flights = new Map<string, Flight>();

  constructor(private readonly capacity = 1000) {}

  get<T>(key: string): T | undefined {
    return this.#entries.get(key) as T | undefined;
  }

  set(key: string, value: unknown): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.capacity) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
  }

  /**
   * Runs a settling call once per key (e.g. per credential handle). A repeat with the same
   * input returns the recorded result with `changed: false`, so a lost response can be
   * recovered; a repeat with different input is a conflict, never a silent success.
   */
  async once<T extends object>(
    key: string,
    input: unknown,
    run: () => Promise<T>,
  ): Promise<T & { changed: boolean }> {
    const fingerprint = canonicalJson(input);
    const { value, shared } = await this.#single(key, fingerprint, async () => {
      const recorded = this.get<{ fingerprint: string; result: T }>(key);
      if (recorded) {
        if (recorded.fingerprint !== fingerprint) {
          throw new BridgeError(
            Codes.conflict,
            "This credential was already settled by an earlier call with other arguments; the first call's outcome stands.",
            false,
            { reason: "settled_with_other_arguments" },
          );
        }
        return { ...recorded.result, changed: false };
      }
      const result = await run();
      this.set(key, { fingerprint, result });
      return { ...result, changed: true };
    });
    return shared ? { ...value, changed: false } : value;
  }

  /**
   * Acquires or begins once per target: while the target is held, a repeat with the same
   * arguments replays it and a repeat with other arguments is `steps.conflict` (the new
   * arguments are never silently dropped).
   */
  async target<R, T extends { changed: boolean }>(
    key: string,
    input: unknown,
    steps: TargetSteps<R, T>,
  ): Promise<T> {
    const fingerprint = canonicalJson(input);
    const { value, shared } = await this.#single(key, fingerprint, async () => {
      const recorded = this.get<{ fingerprint: string; record: R }>(key);
      if (recorded && steps.held(recorded.record)) {
        if (recorded.fingerprint !== fingerprint) throw steps.conflict(recorded.record);
        return { ...await steps.replay(recorded.record), changed: false };
      }
      const { result, record } = await steps.start();
      this.set(key, { fingerprint, record });
      return result;
    });
    return shared ? { ...value, changed: false } : value;
  }

  /** Joins an identical call in flight on `key`, or waits for a different one, then runs. */
  async #single<T>(
    key: string,
    fingerprint: string,
    run: () => Promise<T>,
  ): Promise<{ value: T; shared: boolean }> {
    for (let flight = this.#flights.get(key); flight; flight = this.#flights.get(key)) {
      if (flight.fingerprint === fingerprint) {
        try {
          return { value: await flight.promise as T, shared: true };
        } catch (error) {
          // Another caller's cancellation is not ours: try again on our own account.
          if (!(error instanceof BridgeError && error.code === Codes.cancelled)) throw error;
          continue;
        }
      }
      await flight.promise.catch(() => {});
    }
    const promise = run();
    this.#flights.set(key, { fingerprint, promise });
    try {
      return { value: await promise, shared: false };
    } finally {
      if (this.#flights.get(key)?.promise === promise) this.#flights.delete(key);
    }
  }
}

/** What an acquire or begin holds; each has its own way out (error_codes.ts). */
export type Held = "lease" | "activation" | "operation";

/** The conflict for an acquire or begin repeated with other arguments while it is held. */
export function heldWithOtherArguments(
  held: Held,
  what: string,
  details: Record<string, unknown>,
): BridgeError {
  return new BridgeError(
    Codes.conflict,
    `This bridge already holds ${what}, acquired with other arguments; the new arguments were not applied.`,
    false,
    { reason: `${held}_held_with_other_arguments`, ...details },
  );
}
