/**
 * Host runs are slow, and several tests read the same run: the first caller for a key starts
 * it, every later caller shares its promise.
 */
export function sharedRun<T>(
  runs: Map<string, Promise<T>>,
  key: string,
  start: () => Promise<T>,
): Promise<T> {
  let pending = runs.get(key);
  if (pending === undefined) {
    pending = start();
    runs.set(key, pending);
  }
  return pending;
}
