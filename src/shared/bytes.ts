/** Joins byte chunks into one array; pass `size` (their total length) when it is already known. */
export function concatBytes(
  parts: readonly Uint8Array[],
  size = parts.reduce((n, part) => n + part.length, 0),
): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
