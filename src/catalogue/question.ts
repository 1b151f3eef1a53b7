/**
 * The question put to a person before a consequential change, built so that nobody but the
 * bridge can write its words, whatever characters an agent or the daemon chose.
 *
 * A question is lines, and the bridge writes the beginning of every line: its own words
 * (`words`: a template literal with only numbers between) or a label. A value — anything an
 * agent or the daemon wrote — stands only after a label and its ": ", runs to the end of that
 * line, and is shown by question_value.ts: character for character through an allowlist, any
 * other character spelt out as `{U+XXXX}`. A line break in a value is spelt out too, so a
 * value can never open a line, stand beside another value or sit among the bridge's words.
 *
 * THE PROPERTY every question holds, whatever the values (tests/unit/catalogue/
 * question_property_test.ts walks every path that builds one with every assigned code point):
 *
 * 1. Structure: every line starts with LINE_MARK, which no value shows (so a value a widget
 *    wraps cannot pass for a line); the first line is the header, the second the reading guide
 *    (then, where a value spells a character out, the legend); every other line is the bridge's
 *    words, or a label and a value. Words and labels hold no ": " and no brace, so the first
 *    ": " ends the label.
 * 2. Each value exactly: its rendering reads back to the value itself, spaces and all, so two
 *    different values never read the same, and no two fields are ever joined into one value.
 * 3. Nothing invisible and nothing that normalises into something else: no control, format,
 *    private-use, unassigned, space-like or default-ignorable character but the space, and
 *    NFKC leaves every line as it is. A label names the script of letters beyond A–Z.
 * 4. Every question at most QUESTION_MAX characters. A change too large for one is asked in
 *    parts (at most MAX_PARTS), each naming what it holds ("part 2 of 3: claims 6–10"); a
 *    value too long for one part is split across parts, each piece naming its characters.
 * 5. Items that differ read differently: callers name ids and every part of an identity.
 */
import { ANSWER_BOUNDS } from "../shared/answer_bounds.ts";
import { renderUnits, showValue, type Unit, unitLength } from "./question_value.ts";

/** The longest question, in UTF-16 code units (so also in characters): docs/limits.md. */
export const QUESTION_MAX = ANSWER_BOUNDS.question.max;
/** The most questions one change is asked in; a larger one is refused with a narrower step. */
export const MAX_PARTS = 50;

/**
 * What every line of a question starts with. No value can show it (question_value.ts spells it
 * out), so where a widget wraps a long value, its continuation cannot pass for a line.
 */
export const LINE_MARK = "›";
/** The first line of a question asked whole (after LINE_MARK, as every line). */
export const QUESTION_HEADER = "PortReeve bridge — approval needed.";
/** The second line of every question: how to tell the bridge's words from values. */
export const QUESTION_GUIDE =
  `Every line starts with ${LINE_MARK} and the bridge's own words; text from the agent or the PortReeve daemon stands only after a label's colon, to the end of that line.`;
/** The third line of a question where a value spells a character out. */
export const ESCAPE_LEGEND =
  "Braces spell characters out by their Unicode numbers, such as {U+0020} for a space, and stand for nothing else.";
/** What each line adds to its text: LINE_MARK, a space, and the line break. */
const LINE_COST = LINE_MARK.length + 2;

const BRIDGE = Symbol("the bridge's own words");

/** Text only the bridge writes: words of this repository's source, and numbers. */
export class Words {
  /** Use the `words` tag. */
  constructor(token: symbol, readonly text: string) {
    if (token !== BRIDGE) throw new TypeError("only the words tag makes the bridge's words");
    const fault = wordsFault(text);
    if (fault) throw new TypeError(`the bridge's words ${fault}: ${JSON.stringify(text)}`);
  }
}

/** Why `text` cannot be the bridge's words, if it cannot. */
function wordsFault(text: string): string | undefined {
  if (text.includes(": ")) return 'hold no ": " (it ends a label)';
  if (/[{}]/.test(text)) return "hold no brace (braces spell characters out)";
  if (/[^\P{C}]|[^\P{Z} ]/u.test(text)) return "are one line of visible characters";
  return undefined;
}

/** `words\`Delete ${n} claims.\``: the bridge's words, with only numbers (or words) between. */
export function words(strings: TemplateStringsArray, ...parts: (number | Words)[]): Words {
  if (!Object.isFrozen(strings) || !Array.isArray(strings.raw)) {
    throw new TypeError("the bridge's words are a template literal tagged with words");
  }
  let text = strings[0];
  parts.forEach((part, i) => {
    if (typeof part === "number" && !Number.isFinite(part)) {
      throw new TypeError(`${part} is not a number the bridge writes; show it as a value`);
    }
    text += (typeof part === "number" ? String(part) : part.text) + strings[i + 1];
  });
  return new Words(BRIDGE, text);
}

/** `1 claim`, `14 claims`, `1,024 ports`. */
export function counted(n: number, one: Words, many: Words): Words {
  return new Words(BRIDGE, `${count(n)} ${n === 1 ? one.text : many.text}`);
}

/** A hex id the daemon's schema already checked (a receipt's), as the bridge's words. */
export function idWords(id: string): Words {
  if (!/^[0-9A-Fa-f-]{1,64}$/.test(id)) throw new TypeError(`not a checked id: ${id}`);
  return new Words(BRIDGE, id);
}

/** `12:34:56 UTC` from a checked timestamp: numbers the bridge formats. */
export function clockWords(iso: string): Words {
  const at = new Date(Date.parse(iso));
  if (Number.isNaN(at.getTime())) throw new TypeError(`not a checked timestamp: ${iso}`);
  const two = (n: number) => String(n).padStart(2, "0");
  return new Words(
    BRIDGE,
    `${two(at.getUTCHours())}:${two(at.getUTCMinutes())}:${two(at.getUTCSeconds())} UTC`,
  );
}

/** Ports as runs (`3000–3002`), made by the bridge from numbers: never a value's text. */
class PortRuns {
  constructor(token: symbol, readonly runs: readonly string[]) {
    if (token !== BRIDGE) throw new TypeError("use portRuns");
  }
}

/** `ports` sorted, consecutive ones as one run; refuses anything but whole port numbers. */
export function portRuns(ports: readonly number[]): PortRuns {
  if (!ports.every((p) => Number.isInteger(p))) throw new TypeError("ports are whole numbers");
  const sorted = [...new Set(ports)].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    runs.push(j === i ? `${sorted[i]}` : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return new PortRuns(BRIDGE, runs);
}

/** A label and the value after it: text an agent or the daemon wrote, or ports. */
interface Field {
  label: Words;
  value: string | number | PortRuns;
}

export function field(label: Words, value: string | number | PortRuns): Field {
  return { label, value };
}

export type Line = Words | Field;

/**
 * One thing a change touches (a claim, a process, a setting), named whole in some part: its
 * heading (the bridge's words) and its lines, indented under the heading.
 */
export interface Section {
  /** How a part's title names it: `claim` 3, or a `many` range `claims 3–5`; or `the run`. */
  name: { one: string; many?: string; index?: number };
  heading?: Words;
  lines: readonly Line[];
}

/** Process `index` of `of` the daemon would signal: its pid, and its command as reported. */
export function processSection(
  pid: number,
  command: string | null,
  index: number,
  of: number,
): Section {
  return {
    name: { one: "process", many: "processes", index },
    heading: words`Process ${index} of ${of}, pid ${pid}`,
    lines: [command === null ? words`command not reported` : field(words`command`, command)],
  };
}

/** What a question asks about: the change (on every part), the sections, then the close. */
export interface Asked {
  lead: readonly Words[];
  sections: readonly Section[];
  close: readonly Words[];
}

/**
 * The questions, in order, that ask about one change; or, when more than MAX_PARTS would be
 * needed, how many characters naming everything would have taken.
 */
export type Question =
  | { ok: true; parts: readonly string[] }
  | { ok: false; length: number };

/** Room a part's title may take in its header. */
const TITLE_MAX = 80;
/** The header of a part, without its title. */
const PART_HEADER = "PortReeve bridge — approval needed, part 50 of 50: . " +
  "Nothing is sent unless you approve all 50 parts.";
/** A value longer than this fills the rest of a part and goes on in the next. */
const SPLIT_ABOVE = 400;
/** A value is split only into pieces of at least this many characters. */
const MIN_PIECE = 160;

/** The questions that name everything `asked` names (see the property above). */
export function question(asked: Asked): Question {
  const rawLength = asked.sections.reduce(
    (n, s) => n + s.lines.reduce((m, line) => m + rawSize(line), 0),
    0,
  );
  // Every character takes at least one: a change this large cannot fit, whatever it holds.
  if (rawLength > MAX_PARTS * QUESTION_MAX) return { ok: false, length: rawLength };
  const around = [QUESTION_GUIDE, ...asked.lead.map((w) => w.text)]
    .concat(asked.close.map((w) => w.text))
    .reduce((n, line) => n + line.length + LINE_COST, 0);
  // Whole if it fits; else in parts, whose headers name them.
  const header = QUESTION_HEADER.length + LINE_COST;
  let layout = new Layout(QUESTION_MAX - around - header, asked.sections);
  if (layout.parts.length > 1) {
    const headers = PART_HEADER.length + TITLE_MAX + LINE_COST;
    layout = new Layout(QUESTION_MAX - around - headers, asked.sections);
  }
  const { parts } = layout;
  if (parts.length > MAX_PARTS) {
    const length = parts.reduce((n, part) => n + part.length + around, 0);
    return { ok: false, length };
  }
  const texts = parts.map((part, k) => {
    const header = parts.length === 1
      ? QUESTION_HEADER
      : `PortReeve bridge — approval needed, part ${k + 1} of ${parts.length}: ${
        title(part, k, layout, asked.sections)
      }. Nothing is sent unless you approve all ${parts.length} parts.`;
    return [
      header,
      QUESTION_GUIDE,
      ...(part.spells ? [ESCAPE_LEGEND] : []),
      ...asked.lead.map((w) => w.text),
      ...part.lines,
      ...asked.close.map((w) => w.text),
    ].map((line) => `${LINE_MARK} ${line}`).join("\n");
  });
  const over = texts.find((text) => text.length > QUESTION_MAX);
  if (over) throw new Error(`a question part is ${over.length} characters`);
  return { ok: true, parts: texts };
}

function rawSize(line: Line): number {
  if (line instanceof Words) return line.text.length;
  const { value } = line;
  return value instanceof PortRuns ? value.runs.length : String(value).length;
}

class Part {
  lines: string[] = [];
  /** Characters of its lines and the legend, line breaks included. */
  length = 0;
  /** Whether a value here spells a character out (the legend is then shown). */
  spells = false;
  /** The sections this part shows, by index, in order. */
  sections: number[] = [];
}

/** Words and labels hold no brace: one in a line is a value's spelt-out character. */
const spells = (text: string) => text.includes("{");

/** Lays sections' lines into parts of at most `room` characters each. */
class Layout {
  readonly parts: Part[] = [new Part()];
  /** For each section, the parts (by index) it appears in. */
  readonly where = new Map<number, number[]>();

  constructor(readonly room: number, sections: readonly Section[]) {
    sections.forEach((section, index) => this.#add(section, index));
  }

  get #current(): Part {
    return this.parts.at(-1)!;
  }

  #add(section: Section, index: number): void {
    const indent = section.heading ? "  " : "";
    for (const line of section.lines) {
      if (line instanceof Words) this.#put(section, index, `${indent}${line.text}`);
      else this.#putField(section, index, indent, line);
    }
    if (section.lines.length === 0) this.#put(section, index, undefined);
  }

  /** The heading `section` needs before its next line in the current part. */
  #heading(section: Section, index: number): string | undefined {
    if (!section.heading || this.#current.sections.at(-1) === index) return undefined;
    return this.where.has(index) ? `${section.heading.text} (continued)` : section.heading.text;
  }

  /**
   * Room left in the current part for a line of `section`, after the heading it needs and the
   * legend, when the line is `spelt` and the part has no legend yet.
   */
  #left(section: Section, index: number, spelt: boolean): number {
    const heading = this.#heading(section, index);
    const legend = spelt && !this.#current.spells ? ESCAPE_LEGEND.length + LINE_COST : 0;
    return this.room - this.#current.length - legend - LINE_COST -
      (heading === undefined ? 0 : heading.length + LINE_COST);
  }

  /** Room for a line of `section` in a part of its own (its heading continued). */
  #fresh(section: Section, spelt: boolean): number {
    const heading = section.heading
      ? section.heading.text.length + " (continued)".length + LINE_COST
      : 0;
    return this.room - (spelt ? ESCAPE_LEGEND.length + LINE_COST : 0) - LINE_COST - heading;
  }

  /** Puts `text` (a line of `section`) in this part, or the next when it does not fit. */
  #put(section: Section, index: number, text: string | undefined): void {
    const full = text !== undefined && text.length > this.#left(section, index, spells(text));
    if (full && this.#current.lines.length > 0) this.parts.push(new Part());
    const part = this.#current;
    const heading = this.#heading(section, index);
    if (part.sections.at(-1) !== index) {
      part.sections.push(index);
      const seen = this.where.get(index) ?? [];
      seen.push(this.parts.length - 1);
      this.where.set(index, seen);
    }
    if (text !== undefined && spells(text) && !part.spells) {
      part.spells = true;
      part.length += ESCAPE_LEGEND.length + LINE_COST;
    }
    for (const line of [heading, text]) {
      if (line === undefined) continue;
      part.lines.push(line);
      part.length += line.length + LINE_COST;
    }
  }

  #putField(section: Section, index: number, indent: string, f: Field): void {
    const label = `${indent}${f.label.text}`;
    if (f.value instanceof PortRuns) {
      const runs = f.value.runs;
      return this.#putPieces(section, index, label, runs.length, {
        render: (from, to) => runs.slice(from, to).join(", "),
        grow: (to, from) => runs[to].length + (to > from ? 2 : 0),
        joins: () => false,
        unit: "entries",
        notes: [],
      });
    }
    const value = typeof f.value === "number" ? String(f.value) : f.value;
    if (value === "") return this.#put(section, index, `${label} (empty)`);
    const { units, scripts } = showValue(value);
    this.#putPieces(section, index, label, units.length, {
      render: (from, to) => renderPiece(units, from, to),
      grow: (to, from) => unitLength(units[to], to > from ? units[to - 1] : undefined),
      // A combining mark shown as itself stays on its letter.
      joins: (at) => "text" in units[at] && /^\p{M}$/u.test((units[at] as { text: string }).text),
      unit: "characters",
      notes: scripts.length === 0 ? [] : [scriptNote(scripts)],
    });
  }

  /**
   * A labelled value: whole where it fits (here or, when short, in the next part); else in
   * pieces, from the room left here on, each naming the units it holds
   * (`characters 1–1,150 of 1,900`).
   */
  #putPieces(section: Section, index: number, label: string, size: number, how: Pieces): void {
    const whole = `${label}${noted(how.notes)}: ${how.render(0, size)}`;
    const spelt = spells(whole);
    if (
      whole.length <= this.#left(section, index, spelt) ||
      (whole.length <= SPLIT_ABOVE && whole.length <= this.#fresh(section, spelt))
    ) {
      return this.#put(section, index, whole);
    }
    const total = count(size);
    const labelled = (range: string) =>
      `${label}${noted([...how.notes, `${how.unit} ${range} of ${total}`])}: `;
    const widest = labelled(`${total}–${total}`).length;
    let from = 0;
    while (from < size) {
      // A piece spells out a space at either end: room for the legend, whatever the value.
      let left = this.#left(section, index, true) - widest;
      if (left < MIN_PIECE) {
        this.parts.push(new Part());
        left = this.#fresh(section, true) - widest;
      }
      let to = from;
      for (let length = 0; to < size && length + how.grow(to, from) <= left; to++) {
        length += how.grow(to, from);
      }
      // A space spelt out at the piece's end may not fit: give back what it needs.
      while (to > from + 1 && how.render(from, to).length > left) to--;
      while (to > from + 1 && to < size && how.joins(to)) to--;
      if (to === from) throw new Error("a part has no room for one character of a value");
      const piece = `${labelled(`${count(from + 1)}–${count(to)}`)}${how.render(from, to)}`;
      this.#put(section, index, piece);
      from = to;
    }
  }
}

/** How a value is cut into pieces: its rendering and the growth of each unit. */
interface Pieces {
  render(from: number, to: number): string;
  /** Characters unit `to` adds to a piece that starts at `from`. */
  grow(to: number, from: number): number;
  /** Whether unit `at` must stand in the same piece as the one before it. */
  joins(at: number): boolean;
  /** What a piece counts: `characters`, `entries`. */
  unit: string;
  notes: string[];
}

/** Units `from`–`to` of a value; a space at either end of a piece is spelt out, as at a value's. */
function renderPiece(units: readonly Unit[], from: number, to: number): string {
  const piece = units.slice(from, to).map((unit, i, all): Unit =>
    "text" in unit && unit.text === " " && (i === 0 || i === all.length - 1) ? { code: 0x20 } : unit
  );
  return renderUnits(piece);
}

function noted(notes: readonly string[]): string {
  return notes.length === 0 ? "" : ` (${notes.join("; ")})`;
}

/** `Cyrillic letters`, or `Latin letters beyond A–Z`. */
function scriptNote(scripts: readonly string[]): string {
  return scripts.length === 1 && scripts[0] === "Latin"
    ? "Latin letters beyond A–Z"
    : `${scripts.join(" and ")} letters`;
}

/** What part `k` holds: `claims 6–10`, `claim 14 (end)`, `the run`. */
function title(part: Part, k: number, layout: Layout, sections: readonly Section[]): string {
  const entries: { name: Section["name"]; from?: number; to?: number; position: string }[] = [];
  for (const index of part.sections) {
    const { name } = sections[index];
    const seen = layout.where.get(index)!;
    const position = seen.length === 1
      ? ""
      : seen[0] === k
      ? " (beginning)"
      : seen.at(-1) === k
      ? " (end)"
      : " (continued)";
    const last = entries.at(-1);
    // Whole sections of one kind, numbered in a row, read as a range: `claims 6–10`.
    if (
      last && last.position === "" && position === "" && name.many !== undefined &&
      last.name.many === name.many && last.to !== undefined && last.to + 1 === name.index
    ) {
      last.to = name.index;
      continue;
    }
    entries.push({ name, from: name.index, to: name.index, position });
  }
  const texts = entries.map(({ name, from, to, position }) =>
    from === undefined
      ? `${name.one}${position}`
      : from === to
      ? `${name.one} ${from}${position}`
      : `${name.many} ${from}–${to}`
  );
  const text = texts.join(", ");
  return text.length <= TITLE_MAX ? text : `${texts[0]} to ${texts.at(-1)}`;
}

const count = (n: number) => n.toLocaleString("en-US");
