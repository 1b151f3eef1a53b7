/**
 * How one value is shown to a person (src/catalogue/question_value.ts): every assigned code
 * point of Unicode, in runs, reads back exactly (decoded here by the person's reader, written
 * apart from it), so two different values never read the same; nothing shown as itself is
 * invisible or changes under NFKC, and none is the mark every line starts with; escapes cannot be typed; spaces are exact; and a label names
 * letters beyond A–Z. These are properties over all input, not lists of characters.
 */
import assert from "node:assert/strict";
import {
  codeName,
  PUNCTUATION,
  renderUnits,
  showValue,
  UNKNOWN_SCRIPTS,
} from "../../../src/catalogue/question_value.ts";
import { decodeValue } from "../../support/question_reader.ts";
import { LINE_MARK } from "../../../src/catalogue/question.ts";
import { ASSIGNED } from "../../support/hostile_values.ts";

const shown = (value: string) => renderUnits(showValue(value).units);

/** What a person can see: nothing invisible, nothing NFKC changes, marks on letters. */
function visibleFaults(text: string): string[] {
  const faults: string[] = [];
  for (const char of text) {
    if (char !== " " && /[\p{C}\p{Z}\p{Default_Ignorable_Code_Point}]/u.test(char)) {
      faults.push(`invisible ${codeName(char.codePointAt(0)!)}`);
    }
  }
  if (text.normalize("NFKC") !== text) faults.push("NFKC changes it");
  if (/(^|[^\p{L}\p{M}])\p{M}|\p{M}{3}/u.test(text)) faults.push("a mark on no letter");
  return faults;
}

Deno.test("every assigned code point, in runs, reads back exactly and shows nothing invisible", () => {
  for (const run of [1, 64]) {
    for (let i = 0; i < ASSIGNED.length; i += run) {
      // Each run stands alone and after ASCII: its first letter picks the script.
      const value = String.fromCodePoint(...ASSIGNED.slice(i, i + run));
      for (const framed of [value, `a ${value} b`]) {
        const text = shown(framed);
        const faults: string[] = [];
        assert.equal(decodeValue(text, faults), framed, codeName(ASSIGNED[i]));
        if (text.includes(LINE_MARK)) faults.push("the line mark, which only lines start with");
        assert.deepEqual([...faults, ...visibleFaults(text)], [], `${codeName(ASSIGNED[i])}`);
      }
    }
  }
});

Deno.test("different values never read the same: escapes, spaces and the characters they name", () => {
  const values = [
    "U+0374",
    "{U+0374}",
    "\u0374",
    "\u02B9",
    "a b",
    "a  b",
    "a\u00A0b",
    "a\tb",
    " a",
    "a ",
    "a",
    "\u00E9",
    "e\u0301",
    "\uFF41",
    "\x1b[31ma",
    "a\nb",
    "a\r\nb",
  ];
  const texts = values.map(shown);
  assert.equal(new Set(texts).size, values.length, texts.join(" | "));
  assert.equal(shown("U+0374"), "U+0374", "typed text is shown as text");
  assert.equal(shown("\u0374"), "{U+0374}");
  assert.equal(shown("{U+0374}"), "{U+007B}U+0374{U+007D}", "a brace is never itself");
  assert.equal(shown("a  b"), "a{U+0020 U+0020}b", "a run of spaces is spelt out");
  assert.equal(shown(" a "), "{U+0020}a{U+0020}", "so are spaces at either end");
  assert.equal(shown("a b"), "a b");
  assert.equal(shown("\x1b[31mred"), "{U+001B U+005B}31mred", "a terminal escape is shown");
  assert.equal(shown("a\r\nb"), "a{U+000D U+000A}b", "a line break never breaks the line");
});

Deno.test("ASCII letters, digits and the punctuation of paths and commands are shown as themselves", () => {
  const plain = `/home/me/web-app_2 ${PUNCTUATION}`;
  assert.equal(shown(plain), plain.replace(/ (?=[^ ]*$)/, " "));
  assert.deepEqual(showValue(plain).scripts, []);
});

Deno.test("letters beyond A–Z are shown when of the value's script, and named", () => {
  assert.deepEqual(showValue("caf\u00E9").scripts, ["Latin"]);
  assert.equal(shown("caf\u00E9"), "caf\u00E9");
  // A Cyrillic letter in a Latin-looking word: shown, and the label names Cyrillic.
  assert.deepEqual(showValue("p\u0430ypal").scripts, ["Cyrillic"]);
  // A second script's letters are spelt out.
  assert.equal(shown("\u0438\u03B1"), "\u0438{U+03B1}");
  assert.deepEqual(showValue("\u65E5\u672C\u306E\u30AB\uD55C").scripts, [
    "Han",
    "Hiragana",
    "Katakana",
    "Hangul",
  ]);
  // A mark of the script stays on its letter; one that composes into another letter does not.
  assert.equal(shown("\u0915\u093F"), "\u0915\u093F");
  assert.equal(shown("e\u0301"), "e{U+0301}");
  assert.equal(
    shown("\u014B\u0301\u0302\u0303"),
    "\u014B\u0301\u0302{U+0303}",
    "two marks at most",
  );
  assert.equal(shown("x\u0301"), "x{U+0301}", "none on an ASCII letter");
  assert.deepEqual(UNKNOWN_SCRIPTS, [], "every script this module names, the engine knows");
});

Deno.test("the red team's look-alikes are shown by their numbers, or as letters of a named script", () => {
  const cases: [string, string][] = [
    ["web\u0374", "web{U+0374}"],
    ["web\u1FEE", "web{U+1FEE}"],
    ["web\u1CD3", "web{U+1CD3}"],
    ["\u0375\u0375web", "{U+0375 U+0375}web"],
  ];
  for (const [value, text] of cases) assert.equal(shown(value), text);
  // A syllabics letter is a letter of its script: shown, with its script in the label.
  assert.deepEqual(showValue("web\u1425").scripts, ["Canadian Aboriginal"]);
});
