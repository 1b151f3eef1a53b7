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
 * credential split by spaces, newlines or across string values is still seen. In JSON the
 * characters of object keys form a stream of their own, apart from those of values: whatever
 * the field names are, they never break a value's run (`{"part0x":"<11>","part1x":"<11>"}`
 * is two values whose characters join), and a credential spread over keys is caught too.
 * Each window costs one rolling update and a filter lookup; the exact hash runs only when the
 * filter says maybe.
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
  /** The two character streams a scan follows (values, keys), reused by every scan. */
  readonly #values = new Run();
  readonly #keys = new Run();

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
    const values = this.#values.reset();
    const keys = this.#keys.reset();
    /** Offsets [start, end) of characters to replace, pairwise, in no particular order. */
    const masks: number[] = [];
    const json = mode === "json";
    let inString = !json;
    let run = values;
    // JSON structure, as far as keys need it: the open containers (1 = object) and whether
    // the next string in the innermost one is a key.
    const objects: number[] = [];
    let expectKey = false;
    const n = text.length;
    for (let i = 0; i < n; i++) {
      let c = text.charCodeAt(i);
      let end = i + 1;
      if (!inString) {
        if (c === QUOTE) {
          inString = true;
          run = expectKey && objects[objects.length - 1] === 1 ? keys : values;
        } else if (c === 123 /* { */) {
          objects.push(1);
          expectKey = true;
        } else if (c === 91 /* [ */) {
          objects.push(0);
          expectKey = false;
        } else if (c === 125 /* } */ || c === 93 /* ] */) {
          objects.pop();
          expectKey = false;
        } else if (c === 44 /* , */) {
          expectKey = objects[objects.length - 1] === 1;
        } else if (c === 58 /* : */) {
          expectKey = false;
        }
        continue;
      }
      if (c === BACKSLASH) {
        if (!json) continue;
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
      } else if (c === QUOTE && json) {
        inString = false;
        expectKey = false;
        continue;
      } else if (!(c < 128 && ALPHABET[c])) {
        continue;
      }
      const start = i;
      i = end - 1;
      if (this.#feed(run, c, start, end, filter)) run.mask(masks);
    }
    values.clear();
    keys.clear();
    if (masks.length === 0) return text;
    return masked(text, masks, json ? "\\\\" : "\\");
  }

  /** Adds one credential character to `run`; whether its last window is a remembered one. */
  #feed(run: Run, c: number, start: number, end: number, filter: Uint32Array): boolean {
    const slot = run.fed % FRAGMENT_LENGTH;
    if (run.fed >= FRAGMENT_LENGTH) {
      run.hash = (run.hash - Math.imul(this.#table[run.codes[slot]], this.#topPower)) | 0;
    }
    run.hash = (Math.imul(run.hash, this.#base) + this.#table[c]) | 0;
    run.codes[slot] = c;
    run.starts[slot] = start;
    run.ends[slot] = end;
    run.fed++;
    if (run.fed < FRAGMENT_LENGTH) return false;
    const bit = run.hash >>> (32 - FILTER_BITS);
    if ((filter[bit >>> 5] & (1 << (bit & 31))) === 0) return false;
    const window: number[] = [];
    for (let k = 0; k < FRAGMENT_LENGTH; k++) {
      window.push(run.codes[(run.fed + k) % FRAGMENT_LENGTH]);
    }
    const known = this.#exact.has(this.#keyed(window));
    window.fill(0);
    return known;
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

/** The last FRAGMENT_LENGTH credential characters of one stream: codes and where they sit. */
class Run {
  readonly codes = new Int32Array(FRAGMENT_LENGTH);
  readonly starts = new Int32Array(FRAGMENT_LENGTH);
  readonly ends = new Int32Array(FRAGMENT_LENGTH);
  fed = 0;
  hash = 0;
  /** How many fed characters are already masked. */
  maskedThrough = 0;

  /** Marks the current window (what of it is not masked yet) for replacement. */
  mask(masks: number[]): void {
    for (let k = Math.max(this.fed - FRAGMENT_LENGTH, this.maskedThrough); k < this.fed; k++) {
      const at = k % FRAGMENT_LENGTH;
      masks.push(this.starts[at], this.ends[at]);
    }
    this.maskedThrough = this.fed;
  }

  /** Ready for a new scan. */
  reset(): this {
    this.fed = this.hash = this.maskedThrough = 0;
    return this;
  }

  /** Forgets the characters seen, so no credential text outlives the scan. */
  clear(): void {
    this.codes.fill(0);
  }
}

/**
 * `text` with the ranges in `masks` replaced, touching or overlapping ranges as one. A range
 * never splits an escape of the text the string holds (`literal` is how one backslash of that
 * text is written here): JSON inside a JSON string (a text block's envelope) writes its own
 * escapes as `\\n` or `\\u0001`, whose letters are credential characters; a range that began
 * at that letter would leave a lone backslash behind and break the inner JSON, so it grows to
 * take the whole escape.
 */
function masked(text: string, masks: number[], literal: string): string {
  const ranges: [number, number][] = [];
  for (let m = 0; m < masks.length; m += 2) ranges.push([masks[m], masks[m + 1]]);
  ranges.sort((a, b) => a[0] - b[0]);
  let out = "";
  let from = 0;
  for (let r = 0; r < ranges.length;) {
    let start = innerEscapeStart(text, ranges[r][0], literal);
    let end = ranges[r++][1];
    while (r < ranges.length && ranges[r][0] <= end) end = Math.max(end, ranges[r++][1]);
    end = innerEscapeEnd(text, end, literal);
    start = Math.max(start, from);
    out += text.slice(from, start) + REDACTED;
    from = end;
  }
  return out + text.slice(from);
}

const HEX = /^[0-9A-Fa-f]*$/;

/** Whether `text` holds, ending just before `at`, a backslash of the inner text that escapes. */
function escapingBackslashBefore(text: string, at: number, literal: string): boolean {
  if (at < literal.length || text.slice(at - literal.length, at) !== literal) return false;
  let raw = 0;
  while (at - raw - 1 >= 0 && text.charCodeAt(at - raw - 1) === BACKSLASH) raw++;
  // Backslashes of the inner text, written `literal` each; an odd count escapes what follows.
  if (raw % literal.length !== 0) return false;
  return (raw / literal.length) % 2 === 1;
}

/** Where an inner escape that holds offset `at` (its letter or a hex digit) begins, else `at`. */
function innerEscapeStart(text: string, at: number, literal: string): number {
  if (escapingBackslashBefore(text, at, literal)) return at - literal.length;
  for (let digits = 0; digits <= 3; digits++) {
    const u = at - digits - 1;
    if (u < 0 || text[u] !== "u" || !HEX.test(text.slice(u + 1, at))) continue;
    if (escapingBackslashBefore(text, u, literal)) return u - literal.length;
  }
  return at;
}

/** Where an inner `\uXXXX` escape that offset `end` falls inside ends, else `end`. */
function innerEscapeEnd(text: string, end: number, literal: string): number {
  for (let digits = 0; digits <= 3; digits++) {
    const u = end - digits - 1;
    if (u < 0 || text[u] !== "u" || !HEX.test(text.slice(u + 1, end))) continue;
    if (!escapingBackslashBefore(text, u, literal)) continue;
    const close = u + 5;
    if (close <= text.length && HEX.test(text.slice(u + 1, close))) return close;
  }
  return end;
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
