/**
 * The output queue: frames come out whole and in order whatever the writes take (short
 * writes, multi-byte characters across block edges, frames larger than a block); the gate
 * follows both bounds; written blocks are reused, so a long flood allocates none after the
 * first few; a broken stdout is reported once and refuses later frames.
 */
import assert from "node:assert/strict";
import {
  BLOCK_BYTES,
  type ByteSink,
  type OutputLimits,
  OutputQueue,
} from "../../../src/transport/output_queue.ts";

const decoder = new TextDecoder();

/** A stdout taking at most `writeSize` bytes per write, paused until `resume`. */
function sink(writeSize = Infinity) {
  const out: Uint8Array[] = [];
  let paused = false;
  let wake: (() => void) | undefined;
  const port: ByteSink = {
    async write(bytes) {
      while (paused) await new Promise<void>((resolve) => wake = resolve);
      const n = Math.min(bytes.length, writeSize);
      out.push(bytes.slice(0, n));
      return n;
    },
  };
  return {
    port,
    text: () => decoder.decode(new Uint8Array(out.flatMap((b) => [...b]))),
    writes: () => out.length,
    pause: () => paused = true,
    resume() {
      paused = false;
      wake?.();
    },
  };
}

const limits: OutputLimits = { highBytes: 1000, lowBytes: 100, highFrames: 10, lowFrames: 2 };

Deno.test("frames come out whole and in order across short writes, block edges and large frames", async () => {
  const s = sink(777);
  const queue = new OutputQueue(s.port);
  const frames = [
    "a".repeat(BLOCK_BYTES - 3) + "é€\n", // a multi-byte character lands on the block edge
    "𝄞".repeat(40_000) + "\n", // larger than a block, four bytes a character
    ...Array.from({ length: 3_000 }, (_, i) => `{"id":${i}}\n`),
  ];
  for (const frame of frames) queue.push(frame);
  await queue.flushed();
  assert.equal(s.text(), frames.join(""));
  assert.equal(queue.bytes, 0);
  assert.equal(queue.frames, 0);
});

Deno.test("the gate closes past either high mark and opens at both low marks", async () => {
  const s = sink();
  s.pause();
  const queue = new OutputQueue(s.port, limits);
  for (let i = 0; i < 10; i++) queue.push("x\n");
  assert.equal(queue.gate.isOpen, true, "10 frames is at the mark, not past it");
  queue.push("x\n");
  assert.equal(queue.gate.isOpen, false, "11 frames");
  s.resume();
  await queue.gate.whenOpen();
  await queue.flushed();

  s.pause();
  queue.push("y".repeat(1000) + "\n");
  assert.equal(queue.gate.isOpen, false, "1001 bytes");
  s.resume();
  await queue.flushed();
  assert.equal(queue.gate.isOpen, true);
});

Deno.test("written blocks are reused: a long flood through a slow stdout allocates a bounded few", async () => {
  const s = sink(1000);
  const queue = new OutputQueue(s.port);
  const frame = "z".repeat(5_000) + "\n";
  for (let round = 0; round < 50; round++) {
    s.pause();
    while (queue.gate.isOpen) queue.push(frame); // fill to the high mark, as a flood does
    s.resume();
    await queue.flushed();
  }
  const atHighMark = Math.ceil(2 * 1024 * 1024 / BLOCK_BYTES) + 1;
  assert.ok(
    queue.blocksAllocated <= atHighMark + 1,
    `${queue.blocksAllocated} blocks for 50 floods of ~2 MiB`,
  );
});

Deno.test("a broken stdout is reported once and later frames are refused", async () => {
  let failures = 0;
  const queue = new OutputQueue({ write: () => Promise.reject(new Error("EPIPE")) });
  queue.onBroken = () => failures++;
  queue.push("a\n");
  queue.push("b\n");
  await queue.flushed();
  assert.equal(failures, 1);
  assert.throws(() => queue.push("c\n"), /EPIPE/);
  assert.equal(queue.bytes, 0);
  assert.equal(queue.gate.isOpen, true);
});
