/**
 * Per-process memory of what this bridge already did, for semantic idempotency: a repeated
 * settle (confirm, skip, abandon, complete) returns the recorded result instead of failing,
 * and a repeated acquire or begin for the same target returns the allocation it holds.
 * Bounded (oldest forgotten first) and never persisted; it holds no secrets.
 */
import { BridgeError, Codes } from "../daemon/errors.ts";

export class Memory {
  #entries = new Map<string, unknown>();

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

  delete(key: string): void {
    this.#entries.delete(key);
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
    const fingerprint = JSON.stringify(input);
    const recorded = this.get<{ fingerprint: string; result: T }>(key);
    if (recorded) {
      if (recorded.fingerprint !== fingerprint) {
        throw new BridgeError(
          Codes.conflict,
          "This credential was already settled by an earlier call with different arguments; the first call's outcome stands. Read the current state instead of retrying.",
          false,
          { reason: "settled_with_other_arguments" },
        );
      }
      return { ...recorded.result, changed: false };
    }
    const result = await run();
    this.set(key, { fingerprint, result });
    return { ...result, changed: true };
  }
}
