/**
 * The JSON edit keeps a comment on the last entry's line with that entry: the new entry goes on
 * the lines below it (LF and CRLF, a line comment and a block comment), and taking the entry out
 * again gives back every byte; a comment between entries stays when the one after it goes.
 */
import assert from "node:assert/strict";
import { removeJsonValue, setJsonValue } from "../../../../src/cli/host/json_edit.ts";

const PATH = ["mcpServers", "portreeve"];

Deno.test("json edit: a comment after the last entry stays on its line, and removal undoes all", () => {
  const files = [
    '{\n  "mcpServers": {\n    "files": { "command": "node" } // my files server\n  }\n}\n',
    '{\r\n  "mcpServers": {\r\n    "files": { "command": "node" } /* keep */\r\n  }\r\n}',
  ];
  for (const text of files) {
    const added = setJsonValue(text, PATH, { command: "x" }, "f.json");
    const commented = /("files": \{ "command": "node" \},?) *(\/\/|\/\*)/.exec(added);
    assert.ok(commented !== null, `the comment left its entry:\n${added}`);
    assert.doesNotMatch(added, /\}\s*(\/\/|\/\*)[^\n]*\n\s*\}\s*$/, added);
    assert.equal(removeJsonValue(added, PATH, "f.json"), text);
  }
  // After a trailing comma the new entry goes before the comment; removal still undoes it.
  const trailing = '{\n  "mcpServers": {\n    "files": {}, // a trailing comma\n  }\n}\n';
  const added = setJsonValue(trailing, PATH, { command: "x" }, "f.json");
  assert.equal(removeJsonValue(added, PATH, "f.json"), trailing);
});

Deno.test("json edit: a comment before the entry taken out stays, without an empty line", () => {
  const text = '{\n  "mcpServers": {\n    "a": 1,\n    // about b\n    "b": 2\n  }\n}\n';
  assert.equal(
    removeJsonValue(text, ["mcpServers", "b"], "f.json"),
    '{\n  "mcpServers": {\n    "a": 1\n    // about b\n  }\n}\n',
  );
});
