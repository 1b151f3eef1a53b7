// Small helpers: identifiers, one-time secrets, hashing and canonical JSON.
import { createHash, timingSafeEqual } from "node:crypto";

export const uuid = (): string => crypto.randomUUID();

/** 32 random bytes as unpadded base64url: the 43-character secret format the daemon issues. */
export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return base64url(bytes);
}

export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function fromBase64url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  const padded = text.replaceAll("-", "+").replaceAll("_", "/") +
    "=".repeat((4 - (text.length % 4)) % 4);
  try {
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Constant-time comparison of a presented secret against a stored SHA-256 hex digest. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const a = new TextEncoder().encode(sha256Hex(secret));
  const b = new TextEncoder().encode(storedHash);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** JSON with object keys sorted by UTF-16 code units at every depth and no whitespace. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).filter((k) => record[k] !== undefined).sort((x, y) =>
      x < y ? -1 : x > y ? 1 : 0
    );
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export const iso = (ms: number): string => new Date(ms).toISOString();

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Deep copy through JSON so stored records never alias response objects. */
export function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
