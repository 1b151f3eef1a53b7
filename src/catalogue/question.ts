/**
 * The question put to a person, built so that nobody but the bridge can write its words.
 * Text is made with the `say` tag: the template's literal parts are the bridge's own (written
 * in this repository's source); every interpolated value — anything an agent or the daemon
 * chose — is shown to the person by `shownValue`.
 *
 * THE PROPERTY every question holds, whatever the values (`questionFaults` states it as a
 * check, `question` refuses to return text that breaks it, and
 * tests/unit/catalogue/question_property_test.ts walks every path that builds a question —
 * each execute's preview and the acquire gate — with hostile values):
 *
 * 1. No escape sequences: a person reads each value as it is, minus what rule 2 and 3 take out.
 * 2. Every value stands between straight double quotes, and no quote-like character
 *    (straight, curly, guillemets, CJK corner brackets, fullwidth, primes, …) occurs inside a
 *    value or in the bridge's words, so every `"` is a delimiter and a value cannot close its
 *    own. Only finite numbers (ports, pids, counts) stand bare: they carry no text.
 * 3. Nothing invisible: control, format, private-use, unassigned and default-ignorable
 *    characters and fillers (U+3164, U+115F, U+1160, U+FFA0, U+2800, tags, variation
 *    selectors, zero-width) are replaced by one visible `�` per run; line breaks and other
 *    spaces become one space; at most two combining marks stack on a character, and none
 *    starts a value (it would sit on the delimiter). A value with right-to-left letters is
 *    isolated (U+2068 … U+2069, just inside its quotes), so it cannot reorder the words around
 *    it; those two are the only format characters a question holds.
 * 4. At most `QUESTION_MAX` characters, always. Lists name every item (no "and N more");
 *    when the question cannot fit, there is no question (`question` says how long it would
 *    have been), and the caller refuses the change with a step that narrows it.
 * 5. Each line starts with the bridge's words, so no value can open a line or look like the
 *    header. Items that differ differ in what is shown: callers name ids and every part of
 *    an identity (tests check it).
 */
import { ANSWER_BOUNDS } from "../shared/answer_bounds.ts";

/** The first line of every question; only `question` writes it. */
export const QUESTION_HEADER =
  "PortReeve bridge — approval needed. Text in quotes comes from the agent or the PortReeve daemon (� marks a character not shown); the bridge wrote the rest.";

/** The longest question, in UTF-16 code units (so also in characters): docs/limits.md. */
export const QUESTION_MAX = ANSWER_BOUNDS.question.max;
/** Longest `brief` value shown whole (characters); longer ones keep their head and tail. */
export const MAX_BRIEF_CHARS = 160;
/** Most list items the agent's rendering shows; the person's shows them all. */
export const MAX_LIST_ITEMS = 10;

/** The delimiter around every value. */
export const DELIMITER = '"';
/** Stands for each run of characters a person must not be shown. */
export const NOT_SHOWN = "\uFFFD";
/** First-strong isolate and pop-directional isolate, around right-to-left values. */
export const ISOLATE_OPEN = "\u2068";
export const ISOLATE_CLOSE = "\u2069";

/**
 * Every character that reads as a quotation mark or apostrophe: Unicode's Quotation_Mark,
 * initial and final punctuation, and the look-alikes outside both (backticks, accents,
 * modifier letters, primes, ditto marks, CJK angle brackets, Hebrew geresh, Greek breathings,
 * ornaments, the saltillo).
 */
export const QUOTE_LIKE = new RegExp(
  "[\\p{Quotation_Mark}\\p{Pi}\\p{Pf}`\u00B4\u0384\u0385\u02B9-\u02BF\u02C8\u02CA\u02CB" +
    "\u02DD\u02EE\u02F4-\u02F6\u055A\u05F3\u05F4\u1FBD\u1FBF\u1FEF\u1FFD\u1FFE\u2032-\u2037" +
    "\u2057\u275B-\u2760\u3003\u3008-\u300B\u301D-\u301F\uA78B\uA78C\uFF02\uFF07\uFF40" +
    "\u{1F676}-\u{1F678}]",
  "u",
);

/** What a person must not be shown: invisible, unassigned, private or filler characters. */
export const HIDDEN =
  /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Default_Ignorable_Code_Point}\u2800\u303F\uFFFC]/u;
const SPACE = /\p{White_Space}/u;
const MARK = /\p{M}/u;
/** Letters of the right-to-left blocks (Hebrew, Arabic, Syriac, Thaana, N'Ko, …). */
const RIGHT_TO_LEFT =
  /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFE\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;
/** ANSI/VT escape sequences (CSI, OSC and two-character ones), removed whole. */
// deno-lint-ignore no-control-regex -- matching terminal escapes is the point
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])/g;

type Value = string | number | Fragment | List | Brief;

/** Items shown with a separator: all of them to the person. */
export class List {
  constructor(readonly items: readonly Value[], readonly separator = ", ") {}
}

/** A descriptive value (a command line, a reason) that may be cut in the middle. */
export class Brief {
  constructor(readonly value: string) {}
}

/** Bridge words and the values between them; render it for the person or the agent. */
export class Fragment {
  readonly #words: readonly string[];
  readonly #values: readonly Value[];

  /** Use `say`; the words must be a template literal's. */
  constructor(words: TemplateStringsArray, values: readonly Value[]) {
    if (!Object.isFrozen(words) || !Array.isArray(words.raw)) {
      throw new TypeError("question text must be a template literal tagged with say");
    }
    if (words.some((word) => /[\r\n]/.test(word))) {
      throw new TypeError("one fragment is one line: no line break in the bridge's words");
    }
    const quoted = words.find((word) => QUOTE_LIKE.test(word) || HIDDEN.test(word));
    if (quoted !== undefined) {
      throw new TypeError(
        `the bridge's words hold no quote-like or hidden character: ${JSON.stringify(quoted)}`,
      );
    }
    this.#words = words;
    this.#values = values;
  }

  /** Whether the line starts with the bridge's words (a letter), not with a value. */
  opensWithWords(): boolean {
    return /^\p{L}/u.test(this.#words[0]);
  }

  /** For the person: every value between delimiters, cleaned (see the property above). */
  forPerson(): string {
    return this.#render((value) => shown(value, true));
  }

  /** For the agent (tool summaries): values as the daemon or agent gave them. */
  plain(): string {
    return this.#render((value) => shown(value, false));
  }

  #render(show: (value: Value) => string): string {
    let out = this.#words[0];
    this.#values.forEach((value, i) => out += show(value) + this.#words[i + 1]);
    return out;
  }
}

/** `say\`Reclaim port ${port} with ${policy}.\``: bridge words with values inserted safely. */
export function say(words: TemplateStringsArray, ...values: Value[]): Fragment {
  return new Fragment(words, values);
}

/** `items` joined by `separator`; the person sees every one. */
export function list(items: readonly Value[], separator = ", "): List {
  return new List(items, separator);
}

/** A value a person may read cut in the middle (the item is named by something else too). */
export function brief(value: string): Brief {
  return new Brief(value);
}

/** The whole question, or how long it would have been when it cannot fit `QUESTION_MAX`. */
export type Question = { ok: true; text: string } | { ok: false; length: number };

/** The question: the header, then one line per fragment, each opening with the bridge's words. */
export function question(lines: readonly Fragment[]): Question {
  if (lines.some((line) => !line.opensWithWords())) {
    throw new TypeError("each line of a question opens with the bridge's words");
  }
  const text = [QUESTION_HEADER, ...lines.map((line) => line.forPerson())].join("\n");
  if (text.length > QUESTION_MAX) return { ok: false, length: text.length };
  const faults = questionFaults(text);
  if (faults.length > 0) throw new Error(`a question broke its property: ${faults.join("; ")}`);
  return { ok: true, text };
}

/** How the property above fails for `text` (empty when it holds). */
export function questionFaults(text: string): string[] {
  const faults: string[] = [];
  if (text.length > QUESTION_MAX) faults.push(`${text.length} characters`);
  const chars = Array.from(text);
  let inside = false;
  let marks = 0;
  chars.forEach((char, i) => {
    if (char === DELIMITER) inside = !inside;
    else if (QUOTE_LIKE.test(char)) faults.push(`quote-like U+${hex(char)} at ${i}`);
    if (char === ISOLATE_OPEN) {
      if (!inside || chars[i - 1] !== DELIMITER) faults.push(`stray isolate at ${i}`);
    } else if (char === ISOLATE_CLOSE) {
      if (!inside || chars[i + 1] !== DELIMITER) faults.push(`stray isolate end at ${i}`);
    } else if (char !== "\n" && HIDDEN.test(char)) faults.push(`hidden U+${hex(char)} at ${i}`);
    marks = MARK.test(char) ? marks + 1 : 0;
    if (marks > 2) faults.push(`more than two combining marks at ${i}`);
    if (MARK.test(char) && chars[i - 1] === DELIMITER) faults.push(`a mark on a delimiter at ${i}`);
  });
  if (inside) faults.push("a delimiter without its pair");
  return faults;
}

function hex(char: string): string {
  return char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
}

function shown(value: Value, forPerson: boolean): string {
  if (value instanceof Fragment) return forPerson ? value.forPerson() : value.plain();
  if (value instanceof List) {
    const items = forPerson ? value.items : value.items.slice(0, MAX_LIST_ITEMS);
    const more = value.items.length - items.length;
    const text = items.map((item) => shown(item, forPerson)).join(value.separator);
    return text + (more > 0 ? `${value.separator}and ${more} more` : "");
  }
  if (value instanceof Brief) return forPerson ? briefValue(value.value) : value.value;
  // A finite number carries no text; anything else is shown as a value.
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return forPerson ? shownValue(String(value)) : String(value);
}

/** A value for the person: cleaned, between delimiters, isolated when right-to-left. */
export function shownValue(raw: string): string {
  return delimited(cleanValue(raw));
}

function delimited(clean: string): string {
  const isolated = RIGHT_TO_LEFT.test(clean) ? `${ISOLATE_OPEN}${clean}${ISOLATE_CLOSE}` : clean;
  return `${DELIMITER}${isolated}${DELIMITER}`;
}

/** A descriptive value, cut in the middle past `MAX_BRIEF_CHARS` with a note of the cut. */
function briefValue(raw: string): string {
  const chars = Array.from(cleanValue(raw));
  if (chars.length <= MAX_BRIEF_CHARS) return delimited(chars.join(""));
  const head = chars.slice(0, MAX_BRIEF_CHARS - 40).join("").trimEnd();
  const tail = chars.slice(-39).join("").trimStart();
  const cut = chars.length - (MAX_BRIEF_CHARS - 1);
  return `${delimited(`${head}…${tail}`)} (${count(chars.length)} characters; ${
    count(cut)
  } cut from the middle)`;
}

const count = (n: number) => n.toLocaleString("en-US");

/**
 * The text of a value as a person may read it (rules 1–3 of the property): escapes gone,
 * quote-likes and hidden characters replaced by one `�` per run, spaces collapsed, combining
 * marks at most two deep and never first.
 */
export function cleanValue(raw: string): string {
  let out = "";
  let marks = 0;
  let last: "space" | "hidden" | "char" | "start" = "start";
  for (const char of raw.replace(ESCAPES, "")) {
    if (SPACE.test(char)) {
      if (last !== "space" && last !== "start") out += " ";
      last = last === "start" ? "start" : "space";
      marks = 0;
    } else if (QUOTE_LIKE.test(char) || HIDDEN.test(char)) {
      if (last !== "hidden") out += NOT_SHOWN;
      last = "hidden";
      marks = 0;
    } else if (MARK.test(char)) {
      // A mark needs a letter under it: not first, not on a space, at most two stacked.
      if (last === "char" && marks < 2) out += char;
      marks++;
    } else {
      out += char;
      last = "char";
      marks = 0;
    }
  }
  return out.trimEnd();
}
