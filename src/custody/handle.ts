/** A custody handle: 32 random bytes, base64url without padding (256 bits, 43 characters). */
export const HANDLE_PATTERN: RegExp = /^[A-Za-z0-9_-]{43}$/;

/** Fills a byte array with random values; injectable only so tests can force a collision. */
export type RandomFill = (bytes: Uint8Array) => void;

export function cryptoFill(bytes: Uint8Array): void {
  crypto.getRandomValues(bytes);
}

export function isHandle(value: unknown): value is string {
  return typeof value === "string" && HANDLE_PATTERN.test(value);
}

export function newHandle(fill: RandomFill = cryptoFill): string {
  const bytes = new Uint8Array(32);
  fill(bytes);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
