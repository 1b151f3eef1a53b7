/**
 * Per-process memory of what this bridge already did, for semantic idempotency: a repeated
 * settle (confirm, skip, abandon, complete) returns the recorded result instead of failing,
 * and a repeated acquire or begin for the same target returns the allocation it holds.
 * Bounded (oldest forgotten first) and never persisted; it holds no secrets.
 */
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
   * Runs a settling call once per key (e.g. per credential handle). A repeat returns the
   * recorded result with `changed: false`, so a lost response can be recovered.
   */
  async once<T extends object>(
    key: string,
    run: () => Promise<T>,
  ): Promise<T & { changed: boolean }> {
    const recorded = this.get<T>(key);
    if (recorded) return { ...recorded, changed: false };
    const result = await run();
    this.set(key, result);
    return { ...result, changed: true };
  }
}
