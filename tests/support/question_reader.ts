/**
 * Reads a question put to a person as the person would, independently of
 * src/catalogue/question.ts: line by line, the header (and its part), the guide, the legend,
 * then the bridge's words and `label: value` lines; escapes decoded, a value's pieces joined
 * across parts. It returns what the person learns — every value, whole — and every way the
 * question breaks THE property (question.ts), as faults.
 */
import {
  ESCAPE_LEGEND,
  LINE_MARK,
  MAX_PARTS,
  QUESTION_GUIDE,
  QUESTION_HEADER,
  QUESTION_MAX,
} from "../../src/catalogue/question.ts";

/** One value as the person reads it, with the label it stands after. */
export interface ReadValue {
  /** The label without its notes, indentation kept. */
  label: string;
  notes: string[];
  /** The value, escapes decoded, pieces joined. */
  value: string;
}

export interface ReadQuestion {
  faults: string[];
  values: ReadValue[];
  /** Every line and label the bridge wrote, in order (values left out). */
  words: string[];
  /** Each part's title, for a question asked in parts. */
  titles: string[];
}

/** `Zq12qZ`: the trace token every generated value carries. */
export const TRACE = /Zq\d+qZ/;

/** The characters the bridge writes its words with. */
const BRIDGE_ALPHABET = /^[\x20-\x7A|~—–…]+$/;
/** A label: indentation, words, and notes in parentheses. */
const LABEL = /^( {2})?([A-Za-z][A-Za-z0-9 ]*?)(?: \(([^(){}]*)\))?$/;
const PIECE = /^(characters|entries) ([\d,]+)–([\d,]+) of ([\d,]+)$/;
/** A list of ports as the bridge writes it. */
const PORT_RUNS = /^\d+(–\d+)?(, \d+(–\d+)?)*$/;

const num = (text: string) => Number(text.replaceAll(",", ""));

/**
 * The lines of a question as the bridge wrote them, each without the LINE_MARK it starts with;
 * a line without it is kept whole (and is a fault to `readQuestion`).
 */
export function questionLines(text: string): string[] {
  return text.split("\n").map((line) =>
    line.startsWith(`${LINE_MARK} `) ? line.slice(LINE_MARK.length + 1) : line
  );
}

/** The value `text` stands for; faults for an escape or a space a person could misread. */
export function decodeValue(text: string, faults: string[] = []): string {
  let out = "";
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i];
    if (char === "}") faults.push(`a brace outside an escape in ${JSON.stringify(text)}`);
    if (char === " " && (i === 0 || i === chars.length - 1 || chars[i + 1] === " ")) {
      faults.push(`a space a person cannot see at ${i} of ${JSON.stringify(text)}`);
    }
    if (char !== "{") {
      out += char;
      continue;
    }
    const end = chars.indexOf("}", i);
    const names = chars.slice(i + 1, end).join("").split(" ");
    for (const name of names) {
      const code = /^U\+([0-9A-F]{4,6})$/.exec(name);
      const point = code ? parseInt(code[1], 16) : NaN;
      if (
        end === -1 || !code || point > 0x10FFFF ||
        code[1] !== point.toString(16).toUpperCase().padStart(4, "0")
      ) {
        faults.push(`a malformed escape in ${JSON.stringify(text)}`);
        return out;
      }
      out += String.fromCodePoint(point);
    }
    i = end;
  }
  return out;
}

/** What the person reads in `parts`, and how they break the property. */
export function readQuestion(parts: readonly string[]): ReadQuestion {
  const faults: string[] = [];
  const values: ReadValue[] = [];
  const words: string[] = [];
  const titles: string[] = [];
  /** A value in pieces, still open: its label, notes and where it stands. */
  let open: (ReadValue & { next: number; of: number; unit: string }) | undefined;
  if (parts.length === 0 || parts.length > MAX_PARTS) faults.push(`${parts.length} parts`);
  parts.forEach((part, k) => {
    if (part.length > QUESTION_MAX) faults.push(`part ${k + 1}: ${part.length} characters`);
    checkText(part, faults);
    // Every line starts with the mark no value can show, so no wrapped value passes for one.
    const unmarked = part.split("\n").filter((line) => !line.startsWith(`${LINE_MARK} `));
    if (unmarked.length > 0) faults.push(`part ${k + 1}: a line without its mark`);
    const lines = questionLines(part);
    const header = parts.length === 1 ? QUESTION_HEADER : undefined;
    const multi = new RegExp(
      `^PortReeve bridge — approval needed, part ${k + 1} of ${parts.length}: (.+)\\. ` +
        `Nothing is sent unless you approve all ${parts.length} parts\\.$`,
    ).exec(lines[0]);
    if (header !== undefined ? lines[0] !== header : !multi) {
      faults.push(`part ${k + 1}: header ${JSON.stringify(lines[0])}`);
    }
    if (multi) titles.push(multi[1]);
    if (lines[1] !== QUESTION_GUIDE) faults.push(`part ${k + 1}: no guide`);
    const spells = /\{U\+/.test(lines.slice(2).filter((l) => l !== ESCAPE_LEGEND).join("\n"));
    if ((lines[2] === ESCAPE_LEGEND) !== spells) {
      faults.push(`part ${k + 1}: the legend ${spells ? "is missing" : "stands alone"}`);
    }
    for (const line of lines.slice(spells ? 3 : 2)) {
      const colon = line.indexOf(": ");
      const bridge = colon === -1 ? line : line.slice(0, colon);
      words.push(bridge);
      if (!BRIDGE_ALPHABET.test(bridge) || TRACE.test(bridge) || /[{}]/.test(bridge)) {
        faults.push(
          `part ${k + 1}: not the bridge's words: ${JSON.stringify(bridge.slice(0, 80))}`,
        );
      }
      if (colon === -1) continue;
      const label = LABEL.exec(bridge);
      if (!label) {
        faults.push(`part ${k + 1}: not a label: ${JSON.stringify(bridge.slice(0, 80))}`);
        continue;
      }
      const name = `${label[1] ?? ""}${label[2]}`;
      const notes = label[3] === undefined ? [] : label[3].split("; ");
      const text = line.slice(colon + 2);
      if (text.includes(LINE_MARK)) faults.push(`${label[2]}: a value shows the line mark`);
      const piece = notes.map((note) => PIECE.exec(note)).find((m) => m !== null);
      const rest = notes.filter((note) => !PIECE.test(note));
      const value = PORT_RUNS.test(text) ? text : decodeValue(text, faults);
      if (!piece) {
        if (open) faults.push(`${open.label}: its pieces stop at ${open.next - 1} of ${open.of}`);
        open = undefined;
        values.push({ label: name, notes: rest, value });
        continue;
      }
      const [, unit, from, to, of] = piece;
      const size = unit === "entries" ? value.split(", ").length : Array.from(value).length;
      if (num(to) - num(from) + 1 !== size) {
        faults.push(`${name}: piece ${from}–${to} holds ${size}`);
      }
      if (num(from) === 1) {
        if (open) faults.push(`${open.label}: its pieces stop at ${open.next - 1} of ${open.of}`);
        open = { label: name, notes: rest, value, next: num(to) + 1, of: num(of), unit };
      } else if (!open || open.label !== name || open.next !== num(from) || open.of !== num(of)) {
        faults.push(`${name}: a piece ${from}–${to} of ${of} out of its place`);
      } else {
        open.value += unit === "entries" ? `, ${value}` : value;
        open.next = num(to) + 1;
      }
      if (open && open.next === open.of + 1) {
        values.push({ label: open.label, notes: open.notes, value: open.value });
        open = undefined;
      }
    }
  });
  if (open) faults.push(`${open.label}: its pieces stop at ${open.next - 1} of ${open.of}`);
  return { faults, values, words, titles };
}

/**
 * Nothing a person cannot see or that normalises into something else: no control, format,
 * private-use, unassigned or surrogate character, no space but U+0020, nothing default-ignorable,
 * NFKC leaves the text as it is, and combining marks stand on letters, at most two deep.
 */
function checkText(text: string, faults: string[]): void {
  const hex = (char: string) => char.codePointAt(0)!.toString(16).toUpperCase();
  for (const char of text) {
    if (char === "\n" || char === " ") continue;
    if (/[\p{C}\p{Z}\p{Default_Ignorable_Code_Point}]/u.test(char)) {
      faults.push(`an invisible U+${hex(char)}`);
    }
  }
  if (text.normalize("NFKC") !== text) faults.push("text that NFKC changes");
  if (/\p{M}{3}/u.test(text)) faults.push("three stacked combining marks");
  if (/(^|[^\p{L}\p{M}])\p{M}/mu.test(text)) faults.push("a combining mark on no letter");
}
