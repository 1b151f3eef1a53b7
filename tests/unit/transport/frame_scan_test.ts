/**
 * The scan that judges a frame before it is parsed: depth and values counted outside strings
 * only, the root's id and method found wherever they stand, and the frames of issue 27 (a
 * megabyte of empty objects, of nesting) refused by the default bounds without being parsed.
 */
import assert from "node:assert/strict";
import { COST_PER_VALUE, scanFrame } from "../../../src/transport/frame_scan.ts";
import { FRAME_LIMITS, LineSplitter, type Reject } from "../../../src/transport/frames.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const scan = (s: string) => scanFrame(enc(s));

Deno.test("depth and values are counted from punctuation outside strings", () => {
  const s = scan('{"a":[{},{"b":[1,2]}],"c":"{[,:]}\\"{["}');
  assert.equal(s.depth, 4, "root, a, the object in a, b");
  // { : [ { , { : [ , , :  — the string's brackets and commas do not count.
  assert.equal(s.values, 11);
  assert.equal(s.cost, 2 * s.bytes + COST_PER_VALUE * 11);
});

Deno.test("the root's id and method are read wherever they stand, nested ones are not", () => {
  const last = scan(
    '{"method":"tools/call","params":{"id":9,"method":"x","a":[{"id":3}]},"jsonrpc":"2.0","id":42}',
  );
  assert.deepEqual([last.id, last.hasId, last.method, last.answer], [
    42,
    true,
    "tools/call",
    false,
  ]);
  const named = scan('{"jsonrpc":"2.0","id":"r-\\"1\\"","method":"ping"}');
  assert.deepEqual([named.id, named.method], ['r-"1"', "ping"]);
  const notification = scan('{"jsonrpc":"2.0","method":"notifications/x","params":{"id":1}}');
  assert.deepEqual([notification.id, notification.hasId], [null, false]);
  const answer = scan('{"jsonrpc":"2.0","id":3,"result":{"method":"x"}}');
  assert.deepEqual([answer.id, answer.answer, answer.method], [3, true, undefined]);
  const odd = scan('{"id":1.5,"method":7}');
  assert.deepEqual([odd.id, odd.hasId, odd.method], [null, true, undefined]);
});

Deno.test("the scan never throws on bytes that are not JSON", () => {
  for (
    const text of ["", "}}]]", '"unterminated', "{\\", '{"id":', "\xff\xfe{[", "[".repeat(1000)]
  ) {
    const s = scan(text);
    assert.equal(typeof s.values, "number");
  }
});

/** What the default splitter makes of one line. */
function judged(text: string): ReturnType<LineSplitter["end"]>[number] {
  const [frame] = [...new LineSplitter().push(enc(text + "\n"))];
  return frame;
}

const MEGABYTE = 1024 * 1024 - 200;

Deno.test("a megabyte of empty objects in a valid call is refused unparsed, as a call", () => {
  const definition = `{"a":[${"{},".repeat(Math.floor(MEGABYTE / 3) - 1)}{}]}`;
  const frame = judged(
    `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"portreeve_stack_definition_validate","arguments":{"definition":${definition}}}}`,
  ) as Reject;
  assert.equal(frame.kind, "reject");
  assert.deepEqual([frame.id, frame.was, frame.data?.reason], [
    5,
    "call",
    "message_too_many_values",
  ]);
  assert.equal(frame.data?.limit, FRAME_LIMITS.maxValues);
  assert.match(frame.message, /^The tool call holds about 69\d,\d{3} JSON values.*at most 100,000/);
});

Deno.test("a megabyte of nesting is refused unparsed in every message kind", () => {
  const deep = "[".repeat(MEGABYTE / 2) + "]".repeat(MEGABYTE / 2);
  const kinds: [string, string, Reject["was"], string | number | null][] = [
    ["ping", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${deep}}}`, undefined, 1],
    ["notification", `{"jsonrpc":"2.0","method":"n/x","params":{"x":${deep}}}`, undefined, null],
    ["answer", `{"jsonrpc":"2.0","id":2,"result":{"x":${deep}}}`, "answer", 2],
    [
      "unknown method",
      `{"jsonrpc":"2.0","id":"u","method":"x/y","params":{"x":${deep}}}`,
      undefined,
      "u",
    ],
    [
      "_meta",
      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","_meta":{"x":${deep}}}}`,
      "call",
      3,
    ],
    [
      "arguments",
      `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","arguments":{"x":${deep}}}}`,
      "call",
      4,
    ],
  ];
  for (const [kind, text, was, id] of kinds) {
    const frame = judged(text) as Reject;
    assert.equal(frame.kind, "reject", kind);
    assert.deepEqual(
      [frame.was, frame.id, frame.data?.reason],
      [was, id, "message_too_deep"],
      kind,
    );
    assert.match(frame.message, /levels deep; this bridge reads at most 128 levels/, kind);
  }
});

Deno.test("within the bounds a frame is a line to parse, at the depth and value limits exactly", () => {
  const limits = { maxDepth: 4, maxValues: 9 };
  const one = (text: string) => [...new LineSplitter(limits).push(enc(text + "\n"))][0];
  assert.equal(one('{"a":[[{}]]}').kind, "line", "depth 4");
  assert.equal(one('{"a":[[[{}]]]}').kind, "reject", "depth 5");
  assert.equal(one('{"a":[1,2,3,4,5,6,7]}').kind, "line", "9 values");
  assert.equal(one('{"a":[1,2,3,4,5,6,7,8]}').kind, "reject", "10 values");
});
