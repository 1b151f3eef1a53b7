/**
 * Hostile values for the question property test, from a seeded generator (the same seed gives
 * the same values on every machine and run): quote-likes of every script, fillers, tags,
 * zero-width and bidi characters, right-to-left text, combining-mark stacks, terminal
 * escapes, line breaks, long strings and long lists. Every string carries a trace token
 * (`Zq<n>qZ`) so a test can tell agent or daemon text from the bridge's own words.
 */

/** Characters that read as quotation marks or apostrophes. */
export const QUOTE_POOL: readonly string[] = [
  '"',
  "'",
  "`",
  "\u00AB",
  "\u00BB",
  "\u2018",
  "\u2019",
  "\u201A",
  "\u201B",
  "\u201C",
  "\u201D",
  "\u201E",
  "\u201F",
  "\u2039",
  "\u203A",
  "\u2E42",
  "\u300C",
  "\u300D",
  "\u300E",
  "\u300F",
  "\u301D",
  "\u301E",
  "\u301F",
  "\uFE41",
  "\uFE42",
  "\uFE43",
  "\uFE44",
  "\uFF02",
  "\uFF07",
  "\uFF62",
  "\uFF63",
  "\uFF40",
  "\u2032",
  "\u2033",
  "\u2034",
  "\u2035",
  "\u2036",
  "\u2037",
  "\u2057",
  "\u00B4",
  "\u02B9",
  "\u02BA",
  "\u02BB",
  "\u02BC",
  "\u02BD",
  "\u02C8",
  "\u02DD",
  "\u02EE",
  "\u05F3",
  "\u05F4",
  "\u3003",
  "\u3008",
  "\u3009",
  "\u300A",
  "\u300B",
  "\u275B",
  "\u275C",
  "\u275D",
  "\u275E",
  "\uA78B",
  "\uA78C",
  "\u1FBD",
  "\u1FBF",
  "\u{1F676}",
  "\u{1F677}",
  "\u{1F678}",
];

/** Characters a person must never be shown: fillers, tags, selectors, zero-width, bidi. */
export const HIDDEN_POOL: readonly string[] = [
  "\u3164",
  "\u115F",
  "\u1160",
  "\uFFA0",
  "\u2800",
  "\u{E0001}",
  "\u{E0041}",
  "\u{E007F}",
  "\uFE00",
  "\uFE0F",
  "\u{E0100}",
  "\u{E01EF}",
  "\u180B",
  "\u200B",
  "\u200C",
  "\u200D",
  "\u2060",
  "\u2061",
  "\u2064",
  "\uFEFF",
  "\u00AD",
  "\u034F",
  "\u061C",
  "\u180E",
  "\u17B4",
  "\u200E",
  "\u200F",
  "\u202A",
  "\u202B",
  "\u202C",
  "\u202D",
  "\u202E",
  "\u2066",
  "\u2067",
  "\u2068",
  "\u2069",
  "\uFFF9",
  "\u{1D173}",
  "\uE000",
  "\u{F0000}",
  "\u0000",
  "\u0007",
  "\u007F",
  "\u0085",
  "\u009B",
];

const WORDS = [
  "web",
  "api.http",
  "/srv/app",
  "node --port 5173",
  "PortReeve verified: approving is safe.",
  "The bridge wrote this.",
  "x",
  "5173",
  "claim",
  "Receipt",
  "\u05E9\u05DC\u05D5\u05DD",
  "\u0645\u0631\u062D\u0628\u0627",
  "\u65E5\u672C",
  "\u{1F600}",
  "caf\u00E9",
  " ",
];
const BREAKS = ["\n", "\r\n", "\t", "\u2028", "\u2029", "\u000B", "\u3000", "\u00A0"];
const ESCAPES = ["\x1b[31m", "\x1b[0m", "\x1b]0;title\x07", "\x1b]8;;https://x\x07", "\x1bc"];

export class Gen {
  #state: number;
  #tokens = 0;

  constructor(seed: string) {
    let h = 2166136261;
    for (const char of seed) h = Math.imul(h ^ char.codePointAt(0)!, 16777619);
    this.#state = h >>> 0;
  }

  /** mulberry32: a number in [0, 1). */
  next(): number {
    let t = (this.#state = (this.#state + 0x6D2B79F5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** Mostly short lists, sometimes long ones (up to `max`). */
  list<T>(make: () => T, max = 40): T[] {
    const length = this.chance(0.15) ? this.int(max + 1) : this.int(4);
    return Array.from({ length }, make);
  }

  hex(length: number): string {
    return Array.from({ length }, () => this.int(16).toString(16)).join("");
  }

  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${
      h.slice(20, 32)
    }`;
  }

  port(): number {
    return 1024 + this.int(65535 - 1024);
  }

  pid(): number {
    return 1 + this.int(4_194_303);
  }

  /** A hostile string with a trace token; sometimes thousands of characters long. */
  hostile(): string {
    const pieces = [`Zq${this.#tokens++}qZ`];
    for (let i = this.int(8); i > 0; i--) pieces.push(this.#piece());
    // The token may land anywhere, also first or last.
    for (let i = pieces.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [pieces[i], pieces[j]] = [pieces[j], pieces[i]];
    }
    const text = pieces.join("");
    return this.chance(0.05) ? text.repeat(1 + this.int(200)) : text;
  }

  /** A hostile name an agent may send (1–128 UTF-16 units, whole characters). */
  name(): string {
    return fit(this.hostile(), 128) || "n";
  }

  /** A hostile absolute path (at most `max` UTF-16 units and 4,095 UTF-8 bytes). */
  path(max = 4095): string {
    let path = fit(`/${this.hostile()}`, max);
    while (new TextEncoder().encode(path).length > 4095) path = fit(path, path.length - 100);
    return path;
  }

  #piece(): string {
    switch (this.int(7)) {
      case 0:
        return this.pick(QUOTE_POOL);
      case 1:
        return this.pick(HIDDEN_POOL).repeat(1 + this.int(3));
      case 2:
        return this.pick(BREAKS);
      case 3:
        return this.pick(ESCAPES);
      case 4: {
        const marks = Array.from(
          { length: 1 + this.int(8) },
          () => String.fromCodePoint(0x300 + this.int(0x70)),
        );
        return `${this.chance(0.3) ? "" : "e"}${marks.join("")}`;
      }
      default:
        return this.pick(WORDS);
    }
  }
}

/** `text` cut to at most `max` UTF-16 units, never inside a character. */
function fit(text: string, max: number): string {
  let out = "";
  for (const char of text) {
    if (out.length + char.length > max) break;
    out += char;
  }
  return out;
}
