/**
 * Framing in the stdio transport: lines split or joined across reads arrive as single messages
 * in order, a bad line is answered on stdout without stopping the stream (a tool call as a tool
 * error for the host the connection named), each answer is one scrubbed line written whole, and
 * stdin EOF closes once the answers are out.
 */
import assert from "node:assert/strict";
import { CLIENT_INFO_META_KEY, type JSONRPCMessage } from "@modelcontextprotocol/server";
import {
  EOF_GRACE_MS,
  FLOW_LIMITS,
  FramedStdioTransport,
  type FrameGuards,
  type StdioPorts,
} from "../../../src/transport/stdio_transport.ts";
import { PLAIN_FRAMES } from "../../support/frame_guards.ts";
import { quiescent, tick, turnsUntil } from "../../support/watched.ts";
import { ManualTimers } from "../../support/manual_timers.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Stdin that yields `chunks` one read at a time, then EOF; stdout taking `writeSize` at most. */
function ports(chunks: (string | Uint8Array)[], writeSize = Infinity) {
  const queue = chunks.map((c) => typeof c === "string" ? encoder.encode(c) : c);
  const out: Uint8Array[] = [];
  let release: (() => void) | undefined;
  const held = new Promise<void>((resolve) => release = resolve);
  const stdio: StdioPorts = {
    input: {
      async read(buffer) {
        const next = queue.shift();
        if (next === undefined) {
          await held; // EOF only when the test says so
          return null;
        }
        buffer.set(next);
        return next.length;
      },
    },
    output: {
      write(bytes) {
        const n = Math.min(bytes.length, writeSize);
        out.push(bytes.slice(0, n));
        return Promise.resolve(n);
      },
    },
  };
  return {
    stdio,
    eof: () => release!(),
    stdout: () => decoder.decode(new Uint8Array(out.flatMap((b) => [...b]))),
    writes: () => out.length,
  };
}

function collect(transport: FramedStdioTransport): JSONRPCMessage[] {
  const seen: JSONRPCMessage[] = [];
  transport.onmessage = (m) => seen.push(m);
  return seen;
}

const until = (check: () => boolean) => turnsUntil(check);

Deno.test("a frame split across reads and two frames in one read arrive whole, in order", async () => {
  const p = ports([
    '{"jsonrpc":"2.0","method":"notifications/a"',
    ',"params":{}}\n{"jsonrpc":"2.0","method":"notifications/b"}\n',
    '{"jsonrpc":"2.0","method":"notifications/c"}\n',
  ]);
  const transport = new FramedStdioTransport(PLAIN_FRAMES, p.stdio);
  const seen = collect(transport);
  await transport.start();
  await until(() => seen.length === 3);
  assert.deepEqual(seen.map((m) => (m as { method: string }).method), [
    "notifications/a",
    "notifications/b",
    "notifications/c",
  ]);
  p.eof();
  await transport.close();
});

Deno.test("a line that is not JSON is answered with a parse error and the next line still arrives", async () => {
  const p = ports(['not json\n{"jsonrpc":"2.0","method":"notifications/after"}\n']);
  const transport = new FramedStdioTransport(PLAIN_FRAMES, p.stdio);
  const seen = collect(transport);
  await transport.start();
  await until(() => seen.length === 1 && p.stdout().length > 0);
  const answer = JSON.parse(p.stdout());
  assert.equal(answer.id, null);
  assert.equal(answer.error.code, -32700);
  assert.equal((seen[0] as { method: string }).method, "notifications/after");
  p.eof();
  await transport.close();
});

Deno.test("an answer is one scrubbed line, completed across short writes", async () => {
  const p = ports([], 7);
  const transport = new FramedStdioTransport({
    ...PLAIN_FRAMES,
    scrub: (json) => json.replaceAll("secret", "[redacted]"),
  }, p.stdio);
  await transport.start();
  await transport.send({ jsonrpc: "2.0", id: 1, result: { note: "a secret here" } });
  await transport.flushed();
  assert.ok(p.writes() > 1, "the stand-in stdout took several writes");
  assert.equal(p.stdout(), '{"jsonrpc":"2.0","id":1,"result":{"note":"a [redacted] here"}}\n');
  p.eof();
  await transport.close();
});

Deno.test("send resolves once the answer is queued, before the host reads it", async () => {
  // The SDK keeps a request's context (its arguments too) until send resolves: waiting for
  // the host here would pin every unread answer's request in memory.
  const never = new Promise<number>(() => {});
  const transport = new FramedStdioTransport(PLAIN_FRAMES, {
    input: { read: () => new Promise(() => {}) },
    output: { write: () => never },
  });
  await transport.start();
  let sent = false;
  transport.send({ jsonrpc: "2.0", id: 1, result: {} }).then(() => sent = true);
  await tick();
  assert.equal(sent, true);
  assert.deepEqual(transport.backlog, { frames: 1, bytes: 37 });
});

/**
 * A ping read, then stdin EOF, with the answer still owed: the EOF grace has begun. Its timer
 * fires only if the test says so, so a slow machine cannot end the wait.
 */
async function eofWithPingOwed() {
  const p = ports(['{"jsonrpc":"2.0","id":5,"method":"ping"}\n']);
  const timers = new ManualTimers();
  const transport = new FramedStdioTransport(PLAIN_FRAMES, p.stdio, {}, timers);
  let ends = 0;
  transport.onEnd = () => ends++;
  const seen = collect(transport);
  await transport.start();
  await until(() => seen.length === 1);
  p.eof();
  const grace = await timers.next(EOF_GRACE_MS);
  return { p, timers, transport, grace, ends: () => ends };
}

Deno.test("stdin EOF waits for the answer in flight, then closes once", async () => {
  const { p, timers, transport, ends } = await eofWithPingOwed();
  await quiescent(ends);
  assert.equal(ends(), 0, "still open while the request is unanswered");
  await transport.send({ jsonrpc: "2.0", id: 5, result: {} });
  await until(() => ends() === 1);
  assert.deepEqual(timers.pending, [], "the answer ended the grace");
  assert.equal(JSON.parse(p.stdout()).id, 5);
  await assert.rejects(
    transport.send({ jsonrpc: "2.0", id: 6, result: {} }),
    /stdio transport is closed/,
  );
  await transport.close();
  assert.equal(ends(), 1);
});

Deno.test("stdin EOF waits for an answer no longer than its grace", async () => {
  const { p, grace, ends } = await eofWithPingOwed();
  grace.fire(); // the grace runs out with the request unanswered
  await until(() => ends() === 1);
  assert.equal(p.stdout(), "", "closed without the answer");
});

Deno.test("a cancelled request is not waited for at EOF", async () => {
  const p = ports([
    '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","arguments":{}}}\n',
    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}\n',
  ]);
  const transport = new FramedStdioTransport(PLAIN_FRAMES, p.stdio);
  let ended = false;
  transport.onEnd = () => ended = true;
  const seen = collect(transport);
  await transport.start();
  await until(() => seen.length === 2);
  p.eof();
  await until(() => ended);
  assert.equal(p.stdout(), "", "nothing was answered, and nothing needed to be");
});

Deno.test("a call refused unparsed goes to the host the connection named, on either era", async () => {
  const tooDeep = '{"x":' + "[".repeat(10) + "]".repeat(10) + "}";
  const refusedCall = (id: number) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"t","arguments":${tooDeep}}}\n`;
  const named = (client: string, era: "legacy" | "modern") =>
    era === "legacy"
      ? `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
        `"capabilities":{},"clientInfo":{"name":"${client}","version":"1"}}}\n`
      : `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":` +
        `{"${CLIENT_INFO_META_KEY}":{"name":"${client}","version":"1"}}}}\n`;
  for (const era of ["legacy", "modern"] as const) {
    const p = ports([refusedCall(2), named("some-host", era), refusedCall(3)]);
    const clients: (string | undefined)[] = [];
    const refuseCall: FrameGuards["refuseCall"] = (_error, client) => {
      clients.push(client);
      return { content: [] };
    };
    const transport = new FramedStdioTransport({ ...PLAIN_FRAMES, refuseCall }, p.stdio, {
      frame: { ...FLOW_LIMITS.frame, maxDepth: 8 },
    });
    const seen = collect(transport);
    await transport.start();
    await until(() => clients.length === 2 && seen.length === 1);
    assert.deepEqual(clients, [undefined, "some-host"], era);
    p.eof();
    await transport.send({ jsonrpc: "2.0", id: 1, result: {} });
    await transport.close();
  }
});
