/**
 * The question put to a person, built so that nobody but the bridge can write its lines.
 * Text is made with the `say` tag: the template's literal parts are the bridge's own words
 * (written in this repository's source); every interpolated value — anything that came from
 * an agent or the daemon — is, for the person, quoted, stripped of control characters and
 * line breaks, and bounded in length with a note of what was cut. `question` puts the fixed
 * header first and one fragment per line after it, so no value can start a line, imitate the
 * header or add a sentence outside its quotes.
 */

/** The first line of every question; only `question` writes it. */
export const QUESTION_HEADER =
  "PortReeve bridge — approval needed. Text in quotes comes from the agent or the PortReeve daemon; the bridge wrote the rest.";

/** Longest value shown whole (characters); longer ones keep their head and tail. */
export const MAX_VALUE_CHARS = 160;
/** Most list items shown; the rest are counted. */
export const MAX_LIST_ITEMS = 10;

type Value = string | number | Fragment | List;

/** Items shown with a separator, at most `MAX_LIST_ITEMS` of them. */
export class List {
  constructor(readonly items: readonly Value[], readonly separator = ", ") {}
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
    this.#words = words;
    this.#values = values;
  }

  /** For the person: every value quoted, cleaned and bounded. */
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

/** `items` joined by `separator`, at most `MAX_LIST_ITEMS` shown. */
export function list(items: readonly Value[], separator = ", "): List {
  return new List(items, separator);
}

/** The whole question: the header, then one line per fragment. */
export function question(lines: readonly Fragment[]): string {
  return [QUESTION_HEADER, ...lines.map((line) => line.forPerson())].join("\n");
}

function shown(value: Value, forPerson: boolean): string {
  if (value instanceof Fragment) return forPerson ? value.forPerson() : value.plain();
  if (value instanceof List) {
    const items = value.items.slice(0, MAX_LIST_ITEMS).map((item) => shown(item, forPerson));
    const more = value.items.length - items.length;
    return items.join(value.separator) + (more > 0 ? `${value.separator}and ${more} more` : "");
  }
  // A finite number carries no text; anything else is shown as a quoted string.
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return forPerson ? quoted(String(value)) : String(value);
}

/** ANSI/VT escape sequences (CSI, OSC and two-character ones), removed whole. */
// deno-lint-ignore no-control-regex -- matching terminal escapes is the point
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])/g;
/** Control and format characters (incl. bidi overrides, zero-width), line and paragraph breaks. */
const INVISIBLE = /[\p{Cc}\p{Cf}\u2028\u2029]+/gu;

/** A value for the person: one line, in quotes that cannot be closed early, bounded. */
export function quoted(raw: string): string {
  const clean = raw.replace(ESCAPES, "").replace(INVISIBLE, " ").trim();
  const chars = Array.from(clean);
  if (chars.length <= MAX_VALUE_CHARS) return JSON.stringify(clean);
  const head = chars.slice(0, MAX_VALUE_CHARS - 40).join("");
  const tail = chars.slice(-39).join("");
  const cut = chars.length - (MAX_VALUE_CHARS - 1);
  return `${JSON.stringify(`${head}…${tail}`)} (${
    chars.length.toLocaleString("en-US")
  } characters; ${cut.toLocaleString("en-US")} cut from the middle)`;
}
