/** Time source for custody. Injectable so tests can run the whole renewal schedule instantly. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): number;
  clearTimeout(id: number): void;
}

/**
 * The wall clock. Timers are unref'd: custody must never be the reason the process stays
 * alive after stdin closes (shutdown still clears them through `Custody.close()`).
 */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn: () => void, ms: number): number {
    // Deno 2.9 returns a Node-style Timeout object whose primitive value is the timer id.
    const id = Number(setTimeout(fn, ms));
    Deno.unrefTimer(id);
    return id;
  },
  clearTimeout(id: number): void {
    clearTimeout(id);
  },
};
