/**
 * The cut and the fit every answer goes through: a cut string keeps its head and says how
 * long it was; a fitted value measures within its budget, keeps every type, cuts as little as
 * it can (longest strings first), and shortens lists and maps only when strings are not enough.
 */
import assert from "node:assert/strict";
import {
  ANSWER_BOUNDS,
  boundedError,
  cutText,
  fitValue,
  jsonChars,
  quotedIssue,
  withTruncationNote,
} from "../../../src/shared/answer_bounds.ts";
import { BridgeError } from "../../../src/shared/errors.ts";

Deno.test("cutText keeps short text, and cuts long text to its bound with one marker", () => {
  assert.equal(cutText("short", 10), "short");
  const cut = cutText("a".repeat(5_000), 100, "; read it with x_get (id)");
  assert.equal(cut.length, 100);
  assert.match(cut, /^a+…\[cut from 5,000 characters; read it with x_get \(id\)\]$/);
  // Never half a character: the cut falls before a surrogate pair, not inside it.
  const emoji = cutText("😀".repeat(100), 50);
  assert.ok(emoji.length <= 50);
  assert.doesNotThrow(() => encodeURIComponent(emoji), "well-formed UTF-16");
});

Deno.test("fitValue cuts the longest strings first, as little as fits, and keeps types", () => {
  const record = { id: "r1", port: 7, names: ["a", "b"], root: "/w/" + "r".repeat(50_000) };
  const { value, cut } = fitValue(record, 2_000, "; see x_get");
  assert.ok(jsonChars(value) <= 2_000);
  assert.deepEqual({ ...value, root: "" }, { ...record, root: "" }, "only the long string changed");
  assert.match(value.root, /^\/w\/r+…\[cut from 50,003 characters; see x_get\]$/);
  assert.ok(jsonChars(value) > 1_900, "cut no more than needed");
  assert.deepEqual(cut, { strings: 1, entries: 0 });
  const small = { a: 1 };
  assert.equal(fitValue(small, 100).value, small, "what fits is returned as it is");
});

Deno.test("fitValue shortens lists and maps only when strings are not enough, and says so", () => {
  const many = {
    port: 7,
    listeners: Array.from({ length: 5_000 }, (_, pid) => ({ pid, command: "node" })),
    table: Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`p${i}`, i])),
  };
  const fitted = fitValue(many, 10_000);
  const noted = withTruncationNote(fitted, "; see x_get") as typeof many & { truncated: string };
  assert.ok(jsonChars(fitted.value) <= 10_000);
  assert.equal(noted.port, 7, "a record's own fields stay");
  assert.ok(Array.isArray(noted.listeners) && noted.listeners.length > 0);
  assert.equal(typeof noted.table, "object");
  assert.ok(fitted.cut.entries > 5_000);
  assert.match(
    noted.truncated,
    /^[\d,]+ list items, map entries or nested parts left out; see x_get$/,
  );
});

Deno.test("fitValue always fits: deep nesting is emptied below the depth that fits", () => {
  let deep: unknown = "end";
  for (let i = 0; i < 3_000; i++) deep = { next: deep, label: `level ${i}` };
  const { value } = fitValue(deep, 1_000);
  assert.ok(jsonChars(value) <= 1_000);
  assert.equal(typeof value, "object");
  // However deep the daemon nests (JSON.parse and JSON.stringify take it), the walk does not
  // recurse past a few dozen levels.
  let abyss: unknown = 1;
  for (let i = 0; i < 200_000; i++) abyss = { a: abyss };
  assert.ok(jsonChars(fitValue({ abyss }, 1_000).value) <= 1_000);
  const keys = { [`k${"x".repeat(10_000)}`]: 1 };
  assert.ok(jsonChars(fitValue(keys, 500).value) <= 500, "long keys are cut too");
});

Deno.test("boundedError: message and details within their bounds, once", () => {
  const error = new BridgeError("portreeve_conflict", "m".repeat(2 * 1024 * 1024), false, {
    reason: "d".repeat(1024 * 1024),
    ...Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i])),
  });
  const bounded = boundedError(error);
  assert.equal(bounded.message.length, ANSWER_BOUNDS.errorMessage.max);
  assert.ok(jsonChars(bounded.details) <= ANSWER_BOUNDS.errorDetails.max);
  assert.equal(bounded.message.match(/cut from/g)?.length, 1);
  const fine = new BridgeError("portreeve_not_found", "No such claim.", false, { id: "x" });
  assert.equal(boundedError(fine), fine, "an error within bounds is the same error");
});

Deno.test("quotedIssue cuts a huge key in a path and a huge message", () => {
  const issue = quotedIssue({
    path: ["bindings", "k".repeat(100_000)],
    message: "x".repeat(9_999),
  });
  assert.ok(issue.path.startsWith("bindings.kkk"));
  assert.ok(issue.path.length < 100);
  assert.ok(issue.message.length <= 300);
});
