/**
 * Flow control in the stdio transport: while the host does not read stdout, at most a few MiB
 * of answers queue up and no further frame is taken from stdin; once the host drains, reading
 * resumes and every request is answered. A full call queue holds tool calls the same way.
 */
import assert from "node:assert/strict";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import {
  FramedStdioTransport,
  OUTPUT_HIGH_WATER,
  type StdioPorts,
} from "../../../src/transport/stdio_transport.ts";

const encoder = new TextEncoder();
const ANSWER_BYTES = 100_000;

/** A host writing `total` requests as fast as it may, whose stdout reads can be paused. */
function host(total: number, method = "ping") {
  let sent = 0;
  let paused = true;
  let wake: (() => void) | undefined;
  const written: number[] = [];
  const ports: StdioPorts = {
    input: {
      read(buffer) {
        if (sent >= total) return Promise.resolve(null);
        const line = encoder.encode(
          JSON.stringify({ jsonrpc: "2.0", id: sent++, method, params: {} }) + "\n",
        );
        buffer.set(line);
        return Promise.resolve(line.length);
      },
    },
    output: {
      async write(bytes) {
        while (paused) await new Promise<void>((resolve) => wake = resolve);
        written.push(bytes.length);
        return bytes.length;
      },
    },
  };
  return {
    ports,
    sent: () => sent,
    written,
    drain() {
      paused = false;
      wake?.();
    },
  };
}

function answerEverything(transport: FramedStdioTransport): void {
  transport.onmessage = (message) => {
    const id = (message as { id: number }).id;
    transport.send(
      { jsonrpc: "2.0", id, result: { pad: "x".repeat(ANSWER_BYTES) } } as JSONRPCMessage,
    ).catch(() => {});
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

Deno.test("a host that stops reading stops the bridge reading stdin; draining resumes it", async () => {
  const total = 500; // 50 MB of answers if nothing held them back
  const h = host(total);
  const transport = new FramedStdioTransport(h.ports);
  answerEverything(transport);
  await transport.start();
  await settle();
  const readWhilePaused = h.sent();
  assert.ok(readWhilePaused < total, `stopped reading at ${readWhilePaused}`);
  assert.ok(
    transport.backlogBytes <= OUTPUT_HIGH_WATER + 2 * ANSWER_BYTES,
    `backlog ${transport.backlogBytes} bytes`,
  );
  await settle();
  assert.equal(h.sent(), readWhilePaused, "nothing more is read while the host does not read");
  h.drain();
  const ended = Promise.withResolvers<void>();
  transport.onEnd = () => ended.resolve();
  await ended.promise;
  assert.equal(h.sent(), total);
  assert.equal(h.written.length, total, "every request answered once");
});

Deno.test("tool calls are not taken from stdin while too many are pending", async () => {
  const h = host(10, "tools/call");
  h.drain();
  const transport = new FramedStdioTransport(h.ports, undefined, 3);
  const seen: number[] = [];
  transport.onmessage = (message) => seen.push((message as { id: number }).id);
  await transport.start();
  await settle();
  assert.deepEqual(seen, [0, 1, 2], "three pending calls: the fourth is held");
  assert.ok(h.sent() <= 4, "and stdin is not read on");
  await transport.send({ jsonrpc: "2.0", id: 1, result: {} } as JSONRPCMessage);
  await settle();
  assert.deepEqual(seen, [0, 1, 2, 3], "one answer makes room for one call");
  for (const id of [0, 2, 3, 4, 5, 6, 7, 8]) {
    await transport.send({ jsonrpc: "2.0", id, result: {} } as JSONRPCMessage);
    await settle();
  }
  assert.equal(seen.length, 10);
  await transport.close();
});
