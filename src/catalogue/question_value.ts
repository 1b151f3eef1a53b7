/**
 * How one value an agent or the daemon wrote is shown to a person in a question
 * (question.ts): character by character, through an allowlist, so that what they read is the
 * value exactly and two different values never read the same. Nothing is removed, replaced or
 * merged; no list of bad characters is consulted.
 *
 * Shown as itself:
 * - ASCII letters and digits, and the ASCII punctuation in `PUNCTUATION`;
 * - a space with a character other than a space on each side (so a space at either end, or
 *   one of a run, is spelt out: widgets trim and collapse them);
 * - the letters and digits of the value's script — that of its first letter beyond ASCII,
 *   or, for Han, Hiragana, Katakana, Bopomofo and Hangul, the scripts written beside it —
 *   and that script's combining marks, at most two after a letter, when Unicode's NFKC
 *   normalisation leaves them as they are (so no compatibility or canonical look-alike, such
 *   as U+0374 for U+02B9 or a fullwidth letter, is ever shown as itself).
 *
 * Everything else is spelt out by its code point between braces, `{U+0374}`, consecutive ones
 * in one pair: `{U+200B U+200B}`. Braces are never shown as themselves, so an escape cannot be
 * typed: a value holding the text `U+0374` shows those six characters as they are.
 * `scripts` names the scripts of the letters beyond A–Z that are shown as themselves; the
 * question writes them into the value's label, so a word in Cyrillic or Greek letters never
 * reads as the same word in Latin ones.
 */

/** One character of a value: shown as itself, or spelt out by its code point. */
export type Unit = { text: string } | { code: number };

interface ShownValue {
  units: readonly Unit[];
  /** Scripts of the letters beyond A–Z shown as themselves, in order of appearance. */
  scripts: readonly string[];
}

/** ASCII punctuation shown as itself: what paths, names and command lines are made of. */
export const PUNCTUATION = "-_./@+:,=~%#()!&;'\"$^?";

/** Unicode's scripts (16.0), by the names regular expressions know them by. */
const SCRIPT_NAMES = (
  "Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak " +
  "Bengali Bhaiksuki Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian " +
  "Caucasian_Albanian Chakma Cham Cherokee Chorasmian Coptic Cuneiform Cypriot Cypro_Minoan " +
  "Cyrillic Deseret Devanagari Dives_Akuru Dogra Duployan Egyptian_Hieroglyphs Elbasan " +
  "Elymaic Ethiopic Garay Georgian Glagolitic Gothic Grantha Greek Gujarati Gunjala_Gondi " +
  "Gurmukhi Gurung_Khema Han Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana " +
  "Imperial_Aramaic Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada " +
  "Katakana Kawi Kayah_Li Kharoshthi Khitan_Small_Script Khmer Khojki Khudawadi Kirat_Rai Lao " +
  "Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian Mahajani Makasar Malayalam Mandaic " +
  "Manichaean Marchen Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui Meroitic_Cursive " +
  "Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean Nag_Mundari " +
  "Nandinagari New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Ol_Onal " +
  "Old_Hungarian Old_Italic Old_North_Arabian Old_Permic Old_Persian Old_Sogdian " +
  "Old_South_Arabian Old_Turkic Old_Uyghur Oriya Osage Osmanya Pahawh_Hmong Palmyrene " +
  "Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic Samaritan Saurashtra Sharada " +
  "Shavian Siddham SignWriting Sinhala Sogdian Sora_Sompeng Soyombo Sundanese Sunuwar " +
  "Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangsa Tangut " +
  "Telugu Thaana Thai Tibetan Tifinagh Tirhuta Todhri Toto Tulu_Tigalari Ugaritic Vai " +
  "Vithkuqi Wancho Warang_Citi Yezidi Yi Zanabazar_Square"
).split(" ");

/** Scripts written together with one another (Unicode's "highly restrictive" sets). */
const WRITTEN_BESIDE: Readonly<Record<string, readonly string[]>> = {
  Han: ["Han", "Hiragana", "Katakana", "Bopomofo", "Hangul"],
  Hiragana: ["Hiragana", "Katakana", "Han"],
  Katakana: ["Katakana", "Hiragana", "Han"],
  Bopomofo: ["Bopomofo", "Han"],
  Hangul: ["Hangul", "Han"],
};

interface Script {
  name: string;
  /** Characters of this script (Script). */
  own: RegExp;
  /** Characters used in this script (Script_Extensions), marks and signs included. */
  used: RegExp;
}

/** The scripts this engine knows (one it does not know has its letters spelt out). */
const SCRIPTS: readonly Script[] = SCRIPT_NAMES.flatMap((name) => {
  try {
    return [{
      name,
      own: new RegExp(`^\\p{Script=${name}}$`, "u"),
      used: new RegExp(`^\\p{Script_Extensions=${name}}$`, "u"),
    }];
  } catch {
    return [];
  }
});
const BY_NAME = new Map(SCRIPTS.map((script) => [script.name, script]));

/** The scripts named in this module that the running engine does not know (none, tested). */
export const UNKNOWN_SCRIPTS = SCRIPT_NAMES.filter((name) => !BY_NAME.has(name));

const LETTER_OR_DIGIT = /^[\p{L}\p{Nd}]$/u;
const MARK = /^\p{M}$/u;
const LETTER_OR_MARK = /^[\p{L}\p{M}]$/u;
/** Never shown as themselves, whatever their script: invisible, unassigned or space-like. */
const NEVER = /^[\p{C}\p{Z}\p{White_Space}\p{Default_Ignorable_Code_Point}]$/u;
/** Hangul letters that join into a syllable with the next one: the syllable is shown instead. */
const CONJOINING_JAMO = /^[\u1100-\u11FF\uA960-\uA97F\uD7B0-\uD7FF]$/u;
const ASCII_SHOWN = new RegExp(
  `^[A-Za-z0-9${PUNCTUATION.replace(/[-\\\]^]/g, "\\$&")}]$`,
);

/** The script of the value's first letter beyond ASCII, if this engine knows it. */
function scriptOf(chars: readonly string[]): readonly Script[] {
  for (const char of chars) {
    if (char.charCodeAt(0) < 0x80 || !/^\p{L}$/u.test(char)) continue;
    const script = SCRIPTS.find((s) => s.own.test(char));
    // A letter of no one script (Common, Inherited) names none; the next one may.
    if (script === undefined) continue;
    return (WRITTEN_BESIDE[script.name] ?? [script.name]).map((name) => BY_NAME.get(name)!);
  }
  return [];
}

/** `raw` as a person is shown it: see the module comment. */
export function showValue(raw: string): ShownValue {
  const chars = Array.from(raw);
  const scripts = scriptOf(chars);
  const units: Unit[] = [];
  let marks = 0;
  chars.forEach((char, i) => {
    const shown = char.charCodeAt(0) < 0x80
      ? char === " "
        ? i > 0 && i < chars.length - 1 && chars[i - 1] !== " " && chars[i + 1] !== " "
        : ASCII_SHOWN.test(char)
      : ownScript(char, scripts, marks, units.at(-1));
    marks = shown && MARK.test(char) ? marks + 1 : 0;
    units.push(shown ? { text: char } : { code: char.codePointAt(0)! });
  });
  const checked = normalised(units);
  return { units: checked, scripts: scriptsShown(checked, scripts) };
}

/** Whether a character beyond ASCII belongs to the value's script and may stand as itself. */
function ownScript(
  char: string,
  scripts: readonly Script[],
  marks: number,
  before: Unit | undefined,
): boolean {
  if (NEVER.test(char) || CONJOINING_JAMO.test(char) || char.normalize("NFKC") !== char) {
    return false;
  }
  if (!scripts.some((script) => script.used.test(char))) return false;
  if (LETTER_OR_DIGIT.test(char)) return true;
  // A mark sits on a letter of its script shown as itself, at most two deep.
  return MARK.test(char) && marks < 2 && before !== undefined && "text" in before &&
    before.text.charCodeAt(0) >= 0x80 && LETTER_OR_MARK.test(before.text);
}

/**
 * The units with every run shown as itself left unchanged by NFKC: where a run would
 * normalise (a letter and a mark that compose into another letter), its characters beyond
 * ASCII are spelt out instead, so no two values can read as canonically equivalent.
 */
function normalised(units: Unit[]): Unit[] {
  let start = 0;
  for (let i = 0; i <= units.length; i++) {
    if (i < units.length && "text" in units[i]) continue;
    const run = units.slice(start, i).map((unit) => (unit as { text: string }).text).join("");
    if (run.normalize("NFKC") !== run) {
      for (let j = start; j < i; j++) {
        const text = (units[j] as { text: string }).text;
        if (text.charCodeAt(0) >= 0x80) units[j] = { code: text.codePointAt(0)! };
      }
    }
    start = i + 1;
  }
  return units;
}

function scriptsShown(units: readonly Unit[], scripts: readonly Script[]): string[] {
  const found = new Set<string>();
  for (const unit of units) {
    if (!("text" in unit) || unit.text.charCodeAt(0) < 0x80) continue;
    const script = scripts.find((s) => s.own.test(unit.text));
    if (script) found.add(script.name.replaceAll("_", " "));
  }
  return [...found];
}

/** `U+0374`: a code point as the question spells it. */
export function codeName(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** The text of `units`: characters as themselves, spelt-out ones grouped in braces. */
export function renderUnits(units: readonly Unit[]): string {
  let out = "";
  let open = false;
  for (const unit of units) {
    if ("text" in unit) {
      if (open) out += "}";
      out += unit.text;
      open = false;
    } else {
      out += open ? ` ${codeName(unit.code)}` : `{${codeName(unit.code)}`;
      open = true;
    }
  }
  return open ? `${out}}` : out;
}

/** How many characters `unit` adds to a rendering after `before` (see `renderUnits`). */
export function unitLength(unit: Unit, before: Unit | undefined): number {
  if ("text" in unit) return unit.text.length;
  const name = codeName(unit.code).length;
  // Inside an open group: a space and the name; else the braces around the name.
  return before !== undefined && "code" in before ? 1 + name : 2 + name;
}
