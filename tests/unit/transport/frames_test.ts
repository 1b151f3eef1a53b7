import assert from "node:assert/strict";
import {
  decodeFrame,
  INVALID_REQUEST,
  LineSplitter,
  PARSE_ERROR,
} from "../../../src/transport/frames.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("splits lines across chunks and ignores blank lines", () => {
  const splitter = new LineSplitter();
  assert.deepEqual([...splitter.push(enc('{"jsonrpc":"2.0","id":1,"meth'))], []);
  const frames = [...splitter.push(enc('od":"ping"}\n\n  \r\n{"jsonrpc":"2.0","method":"x"}\n'))];
  assert.equal(frames.length, 2);
  assert.equal(frames[0].kind, "line");
  assert.equal(frames[1].kind, "line");
});

Deno.test("a last line without newline is flushed at end of stream", () => {
  const splitter = new LineSplitter();
  assert.deepEqual([...splitter.push(enc('{"jsonrpc":"2.0","id":"a","method":"ping"}'))], []);
  assert.equal(splitter.end()[0].kind, "line");
});

Deno.test("an oversize frame is rejected unread, with its id when visible, and the next frame still works", () => {
  const splitter = new LineSplitter({ maxBytes: 1024 });
  const big = `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"x":"${
    "a".repeat(5000)
  }"}}`;
  const frames = [
    ...splitter.push(enc(big.slice(0, 700))),
    ...splitter.push(enc(big.slice(700) + "\n")),
    ...splitter.push(enc('{"jsonrpc":"2.0","id":43,"method":"ping"}\n')),
  ];
  assert.equal(frames.length, 2);
  assert.deepEqual(
    {
      kind: frames[0].kind,
      id: (frames[0] as { id: unknown }).id,
      code: (frames[0] as { code: number }).code,
    },
    { kind: "reject", id: 42, code: INVALID_REQUEST },
  );
  assert.match((frames[0] as { message: string }).message, /exceeds the 1024-byte limit/);
  assert.equal(frames[1].kind, "line");
});

Deno.test("oversize id taken from the tail only when it closes the root object", () => {
  const splitter = new LineSplitter({ maxBytes: 64 });
  const tailId = [
    ...splitter.push(enc(`{"params":{"x":"${"b".repeat(200)}"},"jsonrpc":"2.0","id":"z9"}\n`)),
  ];
  assert.equal((tailId[0] as { id: unknown }).id, "z9");
  const nested = [...splitter.push(enc(`{"params":{"x":"${"b".repeat(200)}","id":7}}\n`))];
  assert.equal((nested[0] as { id: unknown }).id, null);
});

Deno.test("a frame of exactly the limit is read; one byte more is not", () => {
  const base = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":"';
  const tail = '"}}';
  const fill = (n: number) => base + "x".repeat(n - base.length - tail.length) + tail;
  const at = [...new LineSplitter({ maxBytes: 512 }).push(enc(fill(512) + "\n"))];
  const over = [...new LineSplitter({ maxBytes: 512 }).push(enc(fill(513) + "\n"))];
  assert.equal(at[0].kind, "line");
  assert.equal(over[0].kind, "reject");
});

Deno.test("malformed frames get specific JSON-RPC errors", () => {
  const cases: [string | Uint8Array, number, RegExp][] = [
    ["not json", PARSE_ERROR, /invalid JSON/],
    [new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), PARSE_ERROR, /UTF-8/],
    ["[1,2]", INVALID_REQUEST, /batches/],
    ["42", INVALID_REQUEST, /object/],
    ['{"id":1,"method":"ping"}', INVALID_REQUEST, /jsonrpc/],
    ['{"jsonrpc":"2.0","id":true,"method":"ping"}', INVALID_REQUEST, /id must be/],
    ['{"jsonrpc":"2.0","id":1,"method":""}', INVALID_REQUEST, /method/],
    ['{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}', INVALID_REQUEST, /params/],
    ['{"jsonrpc":"2.0","id":1}', INVALID_REQUEST, /Not a JSON-RPC/],
    ["[".repeat(200000), PARSE_ERROR, /Parse error/],
  ];
  for (const [input, code, message] of cases) {
    const frame = decodeFrame(typeof input === "string" ? enc(input) : input);
    assert.equal(frame.kind, "reject", String(input).slice(0, 40));
    if (frame.kind === "reject") {
      assert.equal(frame.code, code, String(input).slice(0, 40));
      assert.match(frame.message, message);
    }
  }
});

Deno.test("ids of rejected requests are echoed when valid", () => {
  const frame = decodeFrame(enc('{"jsonrpc":"1.0","id":"abc","method":"ping"}'));
  assert.equal(frame.kind === "reject" && frame.id, "abc");
});

Deno.test("a frame's size is its line's bytes, whether it came in one read or many", () => {
  const splitter = new LineSplitter();
  const big = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":"${"é".repeat(200_000)}"}}`;
  const bytes = enc(big + "\n" + '{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
  const frames = [];
  for (let at = 0; at < bytes.length; at += 65_536) {
    frames.push(...splitter.push(bytes.subarray(at, at + 65_536)));
  }
  assert.deepEqual(
    frames.map((f) => f.kind === "line" && f.scan.bytes),
    [enc(big).length, 40],
  );
});

Deno.test("a U+FFFD the host sent is text, not a decoding error", () => {
  const frame = decodeFrame(
    enc('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":"\uFFFD"}}'),
  );
  assert.equal(frame.kind, "message");
  const params = frame.kind === "message" && (frame.message as { params?: { p?: string } }).params;
  assert.equal(params && params.p, "\uFFFD");
});
