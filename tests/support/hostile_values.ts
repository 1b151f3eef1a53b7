/**
 * Values for the question property test, from a seeded generator (the same seed gives the same
 * values on every machine and run). No list of "bad" characters decides anything here: values
 * are drawn from all of Unicode — every assigned code point, in runs (`UnicodeRuns`), or random
 * runs of them mixed with line breaks, terminal escapes, stacked marks, look-alikes of the
 * bridge's own words, long strings and long lists (`Gen.hostile`). Every string carries a trace
 * token (`Zq<n>qZ`) so a test can tell agent or daemon text from the bridge's own words.
 */

/** Every assigned code point (surrogates and private use included), in order. */
export const ASSIGNED: readonly number[] = (() => {
  const assigned = /\P{Cn}/u;
  const out: number[] = [];
  for (let code = 0; code <= 0x10FFFF; code++) {
    if (assigned.test(String.fromCodePoint(code))) out.push(code);
  }
  return out;
})();

/** Text a daemon or an agent might write to look like the bridge, or to hide. */
const WORDS = [
  "web",
  "api.http",
  "/srv/app",
  "node --port 5173",
  "\nPortReeve bridge — approval needed.",
  "Receipt 8c6f1a2b expires at 12:34:56 UTC.",
  "  workspace: /etc",
  "{U+0374}",
  "U+0374",
  "}",
  "x",
  "5173",
  " ",
  "  ",
  "\u0374\u0374",
  "\u0375\u0375",
  "\u1FEE",
  "\u1425",
  "\u1CD3",
  "\u05E9\u05DC\u05D5\u05DD",
  "caf\u00E9",
  "cafe\u0301",
  "p\u0430ypal",
];
const BREAKS = ["\n", "\r\n", "\t", "\u2028", "\u2029", "\u000B", "\u3000", "\u00A0", "\u0085"];
const ESCAPES = ["\x1b[31m", "\x1b[0m", "\x1b]0;title\x07", "\x1b]8;;https://x\x07", "\x1bc"];

/** Something that hands out the text of values: generated, or all of Unicode in turn. */
export interface TextSource {
  /** A value with a trace token, at most `max` UTF-16 units long. */
  text(max: number): string;
}

export class Gen {
  #state: number;
  #tokens = 0;
  /** Where values' text comes from: the generator itself, unless a test sets another. */
  source: TextSource = { text: (max) => fit(this.#generated(), max) };

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

  token(): string {
    return `Zq${this.#tokens++}qZ`;
  }

  /** A value the daemon might write: sometimes thousands of characters long. */
  hostile(): string {
    return this.source.text(60_000);
  }

  /** A name an agent may send (1–128 UTF-16 units, whole characters). */
  name(): string {
    return this.source.text(128) || "n";
  }

  /** An absolute path (at most `max` UTF-16 units and 4,095 UTF-8 bytes). */
  path(max = 4095): string {
    let path = `/${this.source.text(Math.min(max, 4095) - 1)}`;
    while (new TextEncoder().encode(path).length > 4095) path = fit(path, path.length - 100);
    return path;
  }

  #generated(): string {
    const pieces = [this.token()];
    for (let i = this.int(8); i > 0; i--) pieces.push(this.#piece());
    // The token may land anywhere, also first or last.
    for (let i = pieces.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [pieces[i], pieces[j]] = [pieces[j], pieces[i]];
    }
    const text = pieces.join("");
    return this.chance(0.05) ? text.repeat(1 + this.int(200)) : text;
  }

  #piece(): string {
    switch (this.int(7)) {
      case 0:
      case 1: {
        // A run of assigned code points from anywhere in Unicode.
        const start = this.int(ASSIGNED.length);
        return String.fromCodePoint(...ASSIGNED.slice(start, start + 1 + this.int(12)));
      }
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

/**
 * Every assigned code point, handed out in runs of consecutive ones, each value a trace token
 * and one run. A run the question did not show whole is handed out again (`missed`), so a walk
 * ends only when every run reached the person.
 */
export class UnicodeRuns implements TextSource {
  #next = 0;
  #again: string[] = [];
  #tokens = 0;
  #dice = 1;
  /** Runs handed out since the last `settle`, by text. */
  #out = new Set<string>();

  constructor(readonly run = 512) {}

  get done(): boolean {
    return this.#next >= ASSIGNED.length && this.#again.length === 0 && this.#out.size === 0;
  }

  text(max: number): string {
    const token = `Zq${this.#tokens++}qZ`;
    // A run handed out again goes to a field picked by chance, not to the one that hid it.
    this.#dice = (Math.imul(this.#dice, 1103515245) + 12345) >>> 0;
    const again = this.#again.length > 0 && (this.#dice >>> 16) % 2 === 0
      ? this.#again.splice((this.#dice >>> 8) % this.#again.length, 1)[0]
      : undefined;
    let run = again;
    if (run === undefined && this.#next < ASSIGNED.length) {
      let end = Math.min(this.#next + this.run, ASSIGNED.length);
      // U+DBFF then U+DC00 would pair into another character: each run has one of them.
      const low = ASSIGNED.indexOf(0xDC00, this.#next + 1);
      if (low !== -1 && low < end) end = low;
      run = String.fromCodePoint(...ASSIGNED.slice(this.#next, end));
      this.#next = end;
    }
    if (run === undefined) return token;
    // A field too short for the whole run takes its head; the rest goes out again.
    const head = fit(run, max - token.length);
    if (head.length < run.length) this.#again.push(run.slice(head.length));
    if (head.length > 0) this.#out.add(head);
    return `${token}${head}`;
  }

  /** After a question: the runs it did not show whole go out again. */
  settle(shown: (run: string) => boolean): void {
    for (const run of this.#out) if (!shown(run)) this.#again.push(run);
    this.#out.clear();
  }

  /** What is still to reach a question: code points never handed out, runs to go again. */
  get left(): string {
    const again = this.#again.map((run) => `U+${run.codePointAt(0)!.toString(16).toUpperCase()}`);
    return `${ASSIGNED.length - this.#next} code points, and runs from ${again.join(", ")}`;
  }
}

/** `text` cut to at most `max` UTF-16 units, never inside a character. */
export function fit(text: string, max: number): string {
  let out = "";
  for (const char of text) {
    if (out.length + char.length > max) break;
    out += char;
  }
  return out;
}
