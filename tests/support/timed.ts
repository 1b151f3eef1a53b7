/**
 * Real waits, for the suites that exist to measure or endure time: floods and leaks in
 * test:reliability, the load scenarios, the real hosts. The fast suite (tests/unit, tests/e2e)
 * never imports this file: it waits for events (tests/support/watched.ts), and
 * tests/unit/repo/timing_test.ts fails on any import of it there.
 */

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it holds or `timeoutMs` passes; returns whether it held. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  stepMs = 20,
): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await sleep(stepMs);
  }
  return await check();
}

/**
 * Polls `check` until it holds, however long that takes: for something that will happen, where
 * a slow machine only makes it late (a late event is no failure; a hang is CI's time limit's).
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  stepMs = 20,
): Promise<void> {
  while (!(await check())) await sleep(stepMs);
}

/** Polls `check` every 50 ms until it holds; after `ms`, fails naming `what`. */
export async function pollUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 10_000,
): Promise<void> {
  if (!(await until(check, ms, 50))) throw new Error(`timed out waiting until ${what}`);
}
