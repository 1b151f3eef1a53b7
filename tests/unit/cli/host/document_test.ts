/**
 * What a host's JSON reader refuses, found where it stops: a comment for a plain-JSON reader
 * (Cline), a comma before a closing bracket for one that takes comments only (Gemini CLI, Qwen
 * Code); the same text inside a string is not either.
 */
import assert from "node:assert/strict";
import { beyondSyntax } from "../../../../src/cli/host/document.ts";

Deno.test("document: the first thing a strict reader refuses, with its line and column", () => {
  const commented = '{\r\n  "a": "// not a comment,}", /* one */\r\n  "b": [1,]\r\n}';
  assert.deepEqual(beyondSyntax(commented, "plain"), { line: 2, column: 30, what: "a comment" });
  assert.deepEqual(beyondSyntax(commented, "comments"), {
    line: 3,
    column: 10,
    what: "a comma before a closing bracket",
  });
  assert.equal(beyondSyntax('{ "a": "x,}", "b": [1, 2] }', "comments"), null);
  assert.equal(beyondSyntax('{ "a": "/* no */" }', "plain"), null);
});
