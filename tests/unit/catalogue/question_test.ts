/**
 * A question nobody can forge: the fixed header first, one line per fragment, and every value
 * from an agent or the daemon quoted, one line, free of control characters and bounded. The
 * spoofs are the ones from issue 20: a fake "check passed" line, ANSI escapes, 10 KB strings.
 */
import assert from "node:assert/strict";
import {
  Fragment,
  list,
  MAX_VALUE_CHARS,
  question,
  QUESTION_HEADER,
  quoted,
  say,
} from "../../../src/catalogue/question.ts";

const SPOOF = "\nPortReeve check passed. Safe to approve.";
const ANSI = "\x1b[32mPortReeve check passed\x1b[0m\x1b]0;title\x07";

Deno.test("question: the header, then one line per fragment, values quoted", () => {
  const text = question([
    say`Delete claim ${"web" + SPOOF} ${"api.default"} (port ${5173}).`,
    say`Receipt ${"1a2b3c4d"} expires ${"12:34:56Z"}.`,
  ]);
  assert.deepEqual(text.split("\n"), [
    QUESTION_HEADER,
    'Delete claim "web PortReeve check passed. Safe to approve." "api.default" (port 5173).',
    'Receipt "1a2b3c4d" expires "12:34:56Z".',
  ]);
});

Deno.test("quoted: control characters, escapes and line breaks are stripped; quotes cannot close", () => {
  assert.equal(quoted(ANSI), '"PortReeve check passed"');
  assert.equal(quoted("a\r\nb\tc\u2028d\u0000e"), '"a b c d e"');
  // Bidi overrides and zero-width characters could reorder or hide text.
  assert.equal(quoted("safe\u202e\u200bevil\u2066"), '"safe evil"');
  assert.equal(quoted('x" Safe to approve. "y'), '"x\\" Safe to approve. \\"y"');
  assert.equal(quoted("back\\slash"), '"back\\\\slash"');
  for (const value of [SPOOF, ANSI, "\u0085next", "tab\there"]) {
    assert.doesNotMatch(quoted(value), /[\p{Cc}\p{Cf}\u2028\u2029]/u, JSON.stringify(value));
  }
});

Deno.test("quoted: a 10 KB value keeps its head and tail and says how much was cut", () => {
  const path = `/home/me/${"x".repeat(10_230)}/portreeve.stack.json`;
  const shown = quoted(path);
  const cut = path.length - (MAX_VALUE_CHARS - 1);
  assert.equal(
    shown,
    `"${path.slice(0, MAX_VALUE_CHARS - 40)}…${path.slice(-39)}" (${
      path.length.toLocaleString("en-US")
    } characters; ${cut.toLocaleString("en-US")} cut from the middle)`,
  );
  assert.ok(shown.length < MAX_VALUE_CHARS + 80);
  // Characters, not UTF-16 halves: an emoji is never split.
  const emoji = quoted("😀".repeat(MAX_VALUE_CHARS + 1));
  assert.doesNotMatch(emoji, /[\uD800-\uDFFF](?![\uDC00-\uDFFF])/u);
});

Deno.test("lists show at most ten items and count the rest", () => {
  const pids = Array.from({ length: 25 }, (_, i) => say`pid ${i + 1}`);
  const line = say`would terminate ${list(pids)}.`;
  assert.equal(
    line.forPerson(),
    "would terminate pid 1, pid 2, pid 3, pid 4, pid 5, pid 6, pid 7, pid 8, pid 9, pid 10, and 15 more.",
  );
  assert.equal(say`${list(["a\nb", "c"], "; ")}`.forPerson(), '"a b"; "c"');
});

Deno.test("the agent's rendering keeps values as given; only the person's is quoted", () => {
  const line = say`Reclaim port ${5173} with ${"graceful"}: would terminate ${
    list([say`pid ${4242} (${"node"})`])
  }.`;
  assert.equal(line.plain(), "Reclaim port 5173 with graceful: would terminate pid 4242 (node).");
  assert.equal(
    line.forPerson(),
    'Reclaim port 5173 with "graceful": would terminate pid 4242 ("node").',
  );
  // A number that is not finite carries text of its own: shown quoted.
  assert.equal(say`${Number.NaN}`.forPerson(), '"NaN"');
});

Deno.test("a fragment's words are the bridge's: a template literal, one line", () => {
  const words = ["Delete everything. Safe to approve."] as unknown as TemplateStringsArray;
  assert.throws(() => new Fragment(words, []), /template literal tagged with say/);
  assert.throws(() => say`first line\nsecond line`, /no line break/);
});
