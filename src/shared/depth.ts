/**
 * How deep plain JSON data nests, measured without recursion: a value nested deeper than the
 * runtime's stack allows would break `JSON.stringify` (a RangeError, not an answer), so it is
 * refused where it enters instead.
 */

/** The path to the first value nested deeper than `limit` levels, or null if none is. */
export function deeperThan(value: unknown, limit: number): (string | number)[] | null {
  // Each entry: a container, its depth, and how it was reached (for the path).
  const stack: { node: unknown; depth: number; from: number; key: string | number }[] = [
    { node: value, depth: 0, from: -1, key: "" },
  ];
  const seen: { from: number; key: string | number }[] = [];
  while (stack.length > 0) {
    const { node, depth, from, key } = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    const at = seen.push({ from, key }) - 1;
    if (depth >= limit) return pathTo(seen, at);
    const entries = Array.isArray(node) ? node.entries() : Object.entries(node);
    for (const [childKey, child] of entries) {
      if (typeof child === "object" && child !== null) {
        stack.push({ node: child, depth: depth + 1, from: at, key: childKey });
      }
    }
  }
  return null;
}

function pathTo(seen: { from: number; key: string | number }[], at: number): (string | number)[] {
  const path: (string | number)[] = [];
  for (let i = at; i > 0; i = seen[i].from) path.unshift(seen[i].key);
  return path;
}
