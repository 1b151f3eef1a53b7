/**
 * The bound on parse cost, through the stdio transport: a frame over the depth or value bound
 * is answered for what it is (a tool error for a tool call, a JSON-RPC error otherwise, and an
 * answer to our own request fails that request at once) without ever being parsed, and a frame
 * held by the pending cost bound waits as bytes, unparsed. Event-driven: the host's stdin is a
 * list of chunks, and each test waits for the transport's end.
 */
import assert from "node:assert/strict";
import { tick } from "../../support/watched.ts";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { FramedStdioTransport, type StdioPorts } from "../../../src/transport/stdio_transport.ts";
import type { FlowLimits } from "../../../src/transport/stdio_transport.ts";
import { FLOW_LIMITS } from "../../../src/transport/stdio_transport.ts";
import { scanFrame } from "../../../src/transport/frame_scan.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Counts frame-sized texts (over 2,000 characters) handed to JSON.parse while `body` runs. */
const parsed = { count: 0 };
async function bigParses(body: () => Promise<void>): Promise<number> {
  const original = JSON.parse;
  parsed.count = 0;
  JSON.parse = ((text: string, reviver?: Parameters<typeof original>[1]) => {
    if (text.length > 2_000) parsed.count++;
    return original(text, reviver);
  }) as typeof JSON.parse;
  try {
    await body();
  } finally {
    JSON.parse = original;
  }
  return parsed.count;
}

interface Run {
  /** Every line the transport wrote, parsed. */
  written: Record<string, unknown>[];
  /** Every message handed on to the server. */
  delivered: Record<string, unknown>[];
}

/**
 * Feeds `lines` to a transport, one read each, and runs it to the end. `onMessage` plays the
 * server: it may answer requests (through `send`) or hold them; `readsDone` resolves once the
 * transport has read the last line.
 */
async function run(
  lines: string[],
  limits: Partial<FlowLimits> = {},
  onMessage: (
    message: Record<string, unknown>,
    send: (m: JSONRPCMessage) => void,
    readsDone: Promise<void>,
  ) => void = () => {},
): Promise<Run> {
  const chunks = lines.map((line) => encoder.encode(line + "\n"));
  const readAll = Promise.withResolvers<void>();
  const written: Record<string, unknown>[] = [];
  let partial = "";
  const ports: StdioPorts = {
    input: {
      read(buffer) {
        const chunk = chunks.shift();
        if (chunks.length === 0) readAll.resolve();
        if (!chunk) return Promise.resolve(null);
        buffer.set(chunk);
        return Promise.resolve(chunk.length);
      },
    },
    output: {
      write(bytes) {
        const text = partial + decoder.decode(bytes);
        const parts = text.split("\n");
        partial = parts.pop()!;
        for (const part of parts) written.push(JSON.parse(part));
        return Promise.resolve(bytes.length);
      },
    },
  };
  const transport = new FramedStdioTransport(
    {
      scrub: (json) => json,
      refuseCall: (error) => ({
        content: [{ type: "text", text: `${error.code}: ${error.message}` }],
        isError: true,
        structuredContent: { details: error.details },
      }),
    },
    ports,
    limits,
  );
  const delivered: Record<string, unknown>[] = [];
  const send = (m: JSONRPCMessage) => void transport.send(m);
  transport.onmessage = (message) => {
    delivered.push(message as Record<string, unknown>);
    onMessage(message as Record<string, unknown>, send, readAll.promise);
  };
  const ended = Promise.withResolvers<void>();
  transport.onEnd = () => ended.resolve();
  await transport.start();
  await ended.promise;
  return { written, delivered };
}

const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
const small = { frame: { ...FLOW_LIMITS.frame, maxDepth: 8, maxValues: 50 } };

Deno.test("a tool call over the depth bound is a tool error naming the bound, never parsed", async () => {
  let result: Run | undefined;
  const parses = await bigParses(async () => {
    result = await run([
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"x":${
        deep(2_000)
      }}}}`,
    ]);
  });
  assert.equal(parses, 0, "the frame was never parsed");
  assert.deepEqual(result!.delivered, [], "nor handed to the server");
  const [answer] = result!.written as { id: number; result: Record<string, unknown> }[];
  assert.equal(answer.id, 7);
  assert.equal(answer.result.isError, true);
  assert.deepEqual(answer.result.structuredContent, {
    details: { reason: "message_too_deep", found: 2_003, limit: 128 },
  });
  const [{ text }] = answer.result.content as { text: string }[];
  assert.match(text, /^portreeve_invalid_input: The tool call nests 2,003 levels deep/);
});

Deno.test("other frames over a bound are JSON-RPC errors; an answer of the host's fails our request", async () => {
  const wide = `[${"{},".repeat(40)}{}]`;
  const { written, delivered } = await run(
    [
      `{"jsonrpc":"2.0","id":"p","method":"ping","params":{"x":${wide}}}`,
      `{"jsonrpc":"2.0","method":"notifications/x","params":{"x":${deep(20)}}}`,
      `{"jsonrpc":"2.0","id":3,"result":{"action":"accept","content":{"x":${deep(20)}}}}`,
      `{"jsonrpc":"2.0","id":"after","method":"ping"}`,
    ],
    small,
    (message, send) => {
      if (message.method === "ping") send({ jsonrpc: "2.0", id: "after", result: {} });
    },
  );
  const errors = written.map((m) => [m.id, (m.error as { data?: { reason: string } })?.data]);
  assert.deepEqual(errors, [
    ["p", { reason: "message_too_many_values", found: 92, limit: 50 }],
    [null, { reason: "message_too_deep", found: 22, limit: 8 }],
    [null, { reason: "message_too_deep", found: 23, limit: 8 }],
    ["after", undefined],
  ]);
  // Our request 3 (say, a question to the person) fails now instead of waiting out its time.
  assert.equal(delivered.length, 2);
  assert.deepEqual(delivered[0].id, 3);
  assert.match((delivered[0].error as { message: string }).message, /^The answer nests 23 levels/);
  assert.deepEqual(delivered[1].id, "after");
});

Deno.test("a frame held by the pending cost bound waits as bytes: it is parsed only once taken", async () => {
  const call = (id: number) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"t","arguments":{"items":[${
      '{"k":"' + "v".repeat(3_000) + '"},'
    }${"{},".repeat(200)}{}]}}}`;
  const { cost } = scanFrame(encoder.encode(call(1)));
  const pending = { ...FLOW_LIMITS.pending, maxCost: cost, smallCost: 0 };
  let parsedWhileHeld = -1;
  const taken: unknown[] = [];
  const parses = await bigParses(async () => {
    await run([call(1), call(2)], { pending }, (message, send, readsDone) => {
      taken.push(message.id);
      if (message.id !== 1) return send({ jsonrpc: "2.0", id: 2, result: {} });
      // Call 1 stays unanswered until the transport has read call 2 and had a turn with it.
      readsDone.then(tick).then(() => {
        parsedWhileHeld = parsed.count;
        send({ jsonrpc: "2.0", id: 1, result: {} });
      });
    });
  });
  assert.equal(parsedWhileHeld, 1, "call 2 was read but not parsed while call 1 pended");
  assert.deepEqual(taken, [1, 2], "and taken once call 1 was answered");
  assert.equal(parses, 2);
});
