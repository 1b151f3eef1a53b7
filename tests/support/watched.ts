/**
 * Waiting without time. A test that must wait for something (a request held by a paced daemon,
 * a line read, a deadline scheduled) waits on `when(check)`, which resolves once `check()`
 * holds; whoever changes what `check` reads calls `changed()`. No polling, no deadline: under
 * any load the wait ends exactly when the thing happens.
 */
export class Watched {
  readonly #waiting = new Set<() => void>();

  /** Re-checks every pending `when`. */
  changed(): void {
    for (const look of [...this.#waiting]) look();
  }

  when(check: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const look = () => {
        if (!check()) return;
        this.#waiting.delete(look);
        resolve();
      };
      this.#waiting.add(look);
      look();
    });
  }
}

/**
 * One turn of the event loop (a zero-delay timer: every pending promise callback runs first).
 * The one timer the fast suite may start; it waits for no amount of time.
 */
export function tick(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * For in-process work that stops by itself (a pump filling its bounds, a queue draining): turns
 * the event loop until `state()` has stayed the same for `quiet` turns. Nothing here waits on
 * another process, so the count of turns, not time, says when it is done.
 */
export async function quiescent(state: () => unknown, quiet = 5): Promise<void> {
  let last = JSON.stringify(state());
  for (let same = 0; same < quiet;) {
    await tick();
    const now = JSON.stringify(state());
    same = now === last ? same + 1 : 0;
    last = now;
  }
}

/**
 * For in-process state with no event to hook: turns the event loop until `check()` holds, and
 * fails after `turns` turns (a count, not a time: nothing it waits for is outside the process).
 */
export async function turnsUntil(check: () => boolean, turns = 1_000): Promise<void> {
  for (let turn = 0; !check(); turn++) {
    if (turn >= turns) throw new Error(`not reached in ${turns} turns of the event loop`);
    await tick();
  }
}
