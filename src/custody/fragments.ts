/**
 * Recognises any 12-character fragment of a credential this process holds or has held, in
 * text about to leave the process, without keeping a copy of the credential.
 *
 * For every 12-character window of a credential we keep two things, both keyed by random
 * values drawn once per process and never written anywhere: a bit in a 128 KiB filter (20
 * bits of a keyed rolling hash, many windows per bit) and a 53-bit HalfSipHash-2-4 value.
 * Neither gives the characters back; both vanish with the process.
 *
 * Scanning matches on the credential alphabet only (`A-Z a-z 0-9 _ -`): every other
 * character (spaces, punctuation, JSON escapes, quotes between two strings) is skipped, so a
 * credential split by spaces, newlines or across fields is still seen. Each window costs one
 * rolling update and a filter lookup; the exact hash runs only when the filter says maybe.
 */

export const FRAGMENT_LENGTH = 12;
export const REDACTED = "[redacted]";

const FILTER_BITS = 20;
const ALPHABET = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") {
  ALPHABET[c.charCodeAt(0)] = 1;
}
const BACKSLASH = 92;
const QUOTE = 34;

function randomWords(count: number): Uint32Array {
  return crypto.getRandomValues(new Uint32Array(count));
}

/** Keyed hashes of every credential window seen, and the scrubber built on them. */
export class CredentialFragments {
  readonly #table = randomWords(128);
  /** Odd, so multiplication by it is a bijection modulo 2^32. */
  readonly #base = randomWords(1)[0] | 1;
  /** base^(FRAGMENT_LENGTH-1) mod 2^32, to take the oldest character out of the window. */
  readonly #topPower: number;
  readonly #sipKeys = randomWords(4);
  #filter?: Uint32Array;
  readonly #exact = new Set<number>();

  constructor() {
    let power = 1;
    for (let i = 1; i < FRAGMENT_LENGTH; i++) power = Math.imul(power, this.#base);
    this.#topPower = power;
  }

  /** Windows remembered so far (distinct keyed hashes). */
  get size(): number {
    return this.#exact.size;
  }

  /** Remembers every window of `secret` (its credential-alphabet characters, in order). */
  remember(secret: string): void {
    const codes: number[] = [];
    for (let i = 0; i < secret.length; i++) {
      const c = secret.charCodeAt(i);
      if (c < 128 && ALPHABET[c]) codes.push(c);
    }
    if (codes.length < FRAGMENT_LENGTH) return;
    const filter = this.#filter ??= new Uint32Array(1 << (FILTER_BITS - 5));
    for (let end = FRAGMENT_LENGTH; end <= codes.length; end++) {
      const window = codes.slice(end - FRAGMENT_LENGTH, end);
      const slot = this.#rolling(window) >>> (32 - FILTER_BITS);
      filter[slot >>> 5] |= 1 << (slot & 31);
      this.#exact.add(this.#keyed(window));
      window.fill(0);
    }
    codes.fill(0);
  }

  /**
   * `text` with every remembered fragment replaced by `[redacted]`. In JSON mode only
   * characters inside string literals are ever replaced, so the result stays valid JSON; the
   * same string comes back untouched when nothing matched.
   */
  scrub(text: string, mode: "json" | "text" = "json"): string {
    const filter = this.#filter;
    if (!filter || text.length < FRAGMENT_LENGTH) return text;
    const table = this.#table;
    const base = this.#base;
    const top = this.#topPower;
    // The last FRAGMENT_LENGTH credential characters: code, start and end offsets in text.
    const codes = new Int32Array(FRAGMENT_LENGTH);
    const starts = new Int32Array(FRAGMENT_LENGTH);
    const ends = new Int32Array(FRAGMENT_LENGTH);
    let fed = 0;
    let hash = 0;
    /** Offsets [start, end) of characters to replace, in order, touching runs merged. */
    let masks: number[] | undefined;
    let maskedThrough = 0; // how many fed characters are already masked
    let inString = mode === "text";
    const n = text.length;
    for (let i = 0; i < n; i++) {
      let c = text.charCodeAt(i);
      let end = i + 1;
      if (!inString) {
        if (c === QUOTE) inString = true;
        continue;
      }
      if (c === BACKSLASH) {
        if (mode === "text") continue;
        const next = text.charCodeAt(i + 1);
        if (next === 117 /* u */) {
          c = parseInt(text.slice(i + 2, i + 6), 16);
          end = i + 6;
        } else {
          c = -1;
          end = i + 2;
        }
        if (!(c >= 0 && c < 128 && ALPHABET[c])) {
          i = end - 1;
          continue;
        }
      } else if (c === QUOTE && mode === "json") {
        inString = false;
        continue;
      } else if (!(c < 128 && ALPHABET[c])) {
        continue;
      }
      const slot = fed % FRAGMENT_LENGTH;
      if (fed >= FRAGMENT_LENGTH) hash = (hash - Math.imul(table[codes[slot]], top)) | 0;
      hash = (Math.imul(hash, base) + table[c]) | 0;
      codes[slot] = c;
      starts[slot] = i;
      ends[slot] = end;
      fed++;
      i = end - 1;
      if (fed < FRAGMENT_LENGTH) continue;
      const bit = hash >>> (32 - FILTER_BITS);
      if ((filter[bit >>> 5] & (1 << (bit & 31))) === 0) continue;
      const window: number[] = [];
      for (let k = 0; k < FRAGMENT_LENGTH; k++) window.push(codes[(fed + k) % FRAGMENT_LENGTH]);
      const known = this.#exact.has(this.#keyed(window));
      window.fill(0);
      if (!known) continue;
      masks ??= [];
      for (let k = Math.max(fed - FRAGMENT_LENGTH, maskedThrough); k < fed; k++) {
        const at = k % FRAGMENT_LENGTH;
        if (masks.length > 0 && masks[masks.length - 1] === starts[at]) {
          masks[masks.length - 1] = ends[at];
        } else masks.push(starts[at], ends[at]);
      }
      maskedThrough = fed;
    }
    codes.fill(0);
    if (!masks) return text;
    let out = "";
    let from = 0;
    for (let m = 0; m < masks.length; m += 2) {
      out += text.slice(from, masks[m]) + REDACTED;
      from = masks[m + 1];
    }
    return out + text.slice(from);
  }

  #rolling(window: readonly number[]): number {
    let hash = 0;
    for (const c of window) hash = (Math.imul(hash, this.#base) + this.#table[c]) | 0;
    return hash;
  }

  /** Two HalfSipHash-2-4 values under independent keys, folded into one exact integer. */
  #keyed(window: readonly number[]): number {
    const k = this.#sipKeys;
    const a = halfSipHash(k[0], k[1], window);
    const b = halfSipHash(k[2], k[3], window);
    return a * 2 ** 21 + (b >>> 11);
  }
}

function rotl(x: number, b: number): number {
  return (x << b) | (x >>> (32 - b));
}

/** HalfSipHash-2-4 (32-bit output) of ASCII codes packed little-endian into 32-bit words. */
function halfSipHash(k0: number, k1: number, bytes: readonly number[]): number {
  let v0 = k0 | 0;
  let v1 = k1 | 0;
  let v2 = (0x6c796765 ^ k0) | 0;
  let v3 = (0x74656462 ^ k1) | 0;
  const round = () => {
    v0 = (v0 + v1) | 0;
    v1 = rotl(v1, 5) ^ v0;
    v0 = rotl(v0, 16);
    v2 = (v2 + v3) | 0;
    v3 = rotl(v3, 8) ^ v2;
    v0 = (v0 + v3) | 0;
    v3 = rotl(v3, 7) ^ v0;
    v2 = (v2 + v1) | 0;
    v1 = rotl(v1, 13) ^ v2;
    v2 = rotl(v2, 16);
  };
  const whole = bytes.length - (bytes.length % 4);
  for (let i = 0; i < whole; i += 4) {
    const m = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  let last = (bytes.length & 0xff) << 24;
  for (let i = whole; i < bytes.length; i++) last |= bytes[i] << (8 * (i - whole));
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xff;
  round();
  round();
  round();
  round();
  return (v1 ^ v3) >>> 0;
}
