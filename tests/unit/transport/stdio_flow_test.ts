/**
 * Flow control in the stdio transport: while the host does not read stdout, at most a bounded
 * number of answers (by count and by bytes) queue up and no further frame is taken from stdin;
 * once the host drains, reading resumes and every request is answered once. Pending requests
 * hold stdin the same way: by count per kind, and together by what their frames cost parsed.
 */
import assert from "node:assert/strict";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import {
  FLOW_LIMITS,
  FramedStdioTransport,
  type StdioPorts,
} from "../../../src/transport/stdio_transport.ts";
import { PLAIN_FRAMES } from "../../support/frame_guards.ts";
import type { PendingLimits } from "../../../src/transport/pending_requests.ts";
import { scanFrame } from "../../../src/transport/frame_scan.ts";
import { quiescent } from "../../support/watched.ts";

const encoder = new TextEncoder();
/** Reads and writes of every stand-in host so far: the pumps are done when it stops moving. */
let activity = 0;

/** A host writing `total` requests as fast as it may, whose stdout reads can be paused. */
function host(total: number, method = "ping", params: Record<string, unknown> = {}) {
  let sent = 0;
  let paused = true;
  let wake: (() => void) | undefined;
  const written: number[] = [];
  const ports: StdioPorts = {
    input: {
      read(buffer) {
        activity++;
        if (sent >= total) return Promise.resolve(null);
        const line = encoder.encode(
          JSON.stringify({ jsonrpc: "2.0", id: sent++, method, params }) + "\n",
        );
        buffer.set(line);
        return Promise.resolve(line.length);
      },
    },
    output: {
      async write(bytes) {
        activity++;
        while (paused) await new Promise<void>((resolve) => wake = resolve);
        for (const byte of bytes) if (byte === 10) written.push(1);
        return bytes.length;
      },
    },
  };
  return {
    ports,
    sent: () => sent,
    answers: () => written.length,
    drain() {
      paused = false;
      wake?.();
    },
  };
}

function answerEverything(transport: FramedStdioTransport, answerBytes: number): void {
  transport.onmessage = (message) => {
    const id = (message as { id: number }).id;
    transport.send(
      { jsonrpc: "2.0", id, result: { pad: "x".repeat(answerBytes) } } as JSONRPCMessage,
    ).catch(() => {});
  };
}

/** Until the transport has taken and written what it may. */
const settle = () => quiescent(() => activity);

async function untilEnd(transport: FramedStdioTransport): Promise<void> {
  const ended = Promise.withResolvers<void>();
  transport.onEnd = () => ended.resolve();
  await ended.promise;
}

for (
  const [what, total, answerBytes, bound] of [
    ["bytes", 500, 100_000, "bytes"], // 50 MB of answers if nothing held them
    ["count", 5_000, 10, "frames"], // more tiny answers than the count bound
  ] as const
) {
  Deno.test(`answers the host does not read are bounded by ${what}; draining resumes reading`, async () => {
    const h = host(total);
    const transport = new FramedStdioTransport(PLAIN_FRAMES, h.ports);
    answerEverything(transport, answerBytes);
    await transport.start();
    await settle();
    const readWhilePaused = h.sent();
    assert.ok(readWhilePaused < total, `stopped reading at ${readWhilePaused}`);
    const limit = bound === "bytes" ? FLOW_LIMITS.output.highBytes : FLOW_LIMITS.output.highFrames;
    const step = bound === "bytes" ? answerBytes + 100 : 1;
    assert.ok(
      transport.backlog[bound] <= limit + step,
      `backlog ${transport.backlog[bound]} ${bound}, limit ${limit}`,
    );
    await settle();
    assert.equal(h.sent(), readWhilePaused, "nothing more is read while the host does not read");
    h.drain();
    await untilEnd(transport);
    assert.equal(h.sent(), total);
    assert.equal(h.answers(), total, "every request answered once");
  });
}

/**
 * A started transport over a host that reads every answer at once, with `pending` in place of
 * the default bounds, after the pump has taken what it may; `seen` lists the ids handed on.
 */
async function takingFrom(
  total: number,
  method: string,
  pending: Partial<PendingLimits>,
  params: Record<string, unknown> = {},
) {
  const h = host(total, method, params);
  h.drain();
  const transport = new FramedStdioTransport(PLAIN_FRAMES, h.ports, {
    pending: { ...FLOW_LIMITS.pending, ...pending },
  });
  const seen: number[] = [];
  transport.onmessage = (message) => seen.push((message as { id: number }).id);
  await transport.start();
  await settle();
  return { h, transport, seen };
}

/** Answers request `id`, then lets the pump take what that made room for. */
async function answer(transport: FramedStdioTransport, id: number): Promise<void> {
  await transport.send({ jsonrpc: "2.0", id, result: {} } as JSONRPCMessage);
  await settle();
}

Deno.test("tool calls are not taken from stdin while too many are pending", async () => {
  const { h, transport, seen } = await takingFrom(10, "tools/call", { maxCalls: 3 });
  assert.deepEqual(seen, [0, 1, 2], "three pending calls: the fourth is held");
  assert.ok(h.sent() <= 4, "and stdin is not read on");
  await answer(transport, 1);
  assert.deepEqual(seen, [0, 1, 2, 3], "one answer makes room for one call");
  for (const id of [0, 2, 3, 4, 5, 6, 7, 8]) await answer(transport, id);
  assert.equal(seen.length, 10);
  await transport.close();
});

Deno.test("tool calls are held by the parse cost of their frames; one call alone always passes", async () => {
  // A small frame of many containers: its cost, not its bytes, fills the bound.
  const args = { name: "t", arguments: { items: Array.from({ length: 500 }, () => ({})) } };
  const line = encoder.encode(
    JSON.stringify({ jsonrpc: "2.0", id: 0, method: "tools/call", params: args }),
  );
  const { cost, bytes } = scanFrame(line);
  assert.ok(cost > 20 * bytes, `a frame of empty objects costs ${cost} for ${bytes} bytes`);
  // Room for two calls and a half; each call is over the small-frame allowance.
  const { transport, seen } = await takingFrom(
    6,
    "tools/call",
    { maxCost: Math.floor(cost * 2.5), smallCost: bytes },
    args,
  );
  assert.deepEqual(seen, [0, 1], "two calls fit in the cost bound, the third is held");
  assert.ok(transport.pendingCalls.cost <= cost * 2.5);
  await answer(transport, 0);
  assert.deepEqual(seen, [0, 1, 2]);
  await transport.close();

  const alone = await takingFrom(2, "tools/call", { maxCost: 10, smallCost: 1 }, args);
  assert.deepEqual(
    alone.seen,
    [0],
    "a call costlier than the whole bound is taken when none pends",
  );
  await alone.transport.close();
});

Deno.test("other requests are held by count while unanswered", async () => {
  const { transport, seen } = await takingFrom(10, "resources/list", { maxOthers: 4 });
  assert.deepEqual(seen, [0, 1, 2, 3]);
  await answer(transport, 2);
  assert.deepEqual(seen, [0, 1, 2, 3, 4]);
  await transport.close();
});
