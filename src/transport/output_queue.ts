/**
 * Answers on their way to stdout: frames are encoded at once into fixed 64 KiB blocks, which
 * one writer drains in order and then reuses.
 *
 * - A frame is accepted at once (the sender never waits for the host to read): the SDK keeps a
 *   request's whole context, arguments included, until its answer is accepted, so waiting here
 *   kept every unread answer's request alive (over a GiB under a flood of 1 MiB calls).
 * - A queued answer costs its bytes and nothing more, however many there are; blocks are
 *   reused, so a flood allocates none after the first few, and small answers share writes.
 * - Flow control watches the queue: past either high mark (frames or bytes waiting) the gate
 *   closes, and the stdio transport stops taking frames from stdin until both are at their
 *   low marks.
 */
import { type Gate, Valve } from "./valve.ts";

export interface OutputLimits {
  /** Gate closes past this many bytes waiting, and reopens at `lowBytes`. */
  highBytes: number;
  lowBytes: number;
  /** Gate closes past this many frames waiting, and reopens at `lowFrames`. */
  highFrames: number;
  lowFrames: number;
}

/**
 * 2 MiB holds a few dozen of the largest answers (a tools/list is ~62 KB); 1,024 frames bound
 * a flood of tiny ones (pings), whose bytes alone would let tens of thousands queue.
 */
export const OUTPUT_LIMITS: Readonly<OutputLimits> = {
  highBytes: 2 * 1024 * 1024,
  lowBytes: 512 * 1024,
  highFrames: 1024,
  lowFrames: 256,
};

export const BLOCK_BYTES = 64 * 1024;

export interface ByteSink {
  write(bytes: Uint8Array): Promise<number>;
}

interface Block {
  bytes: Uint8Array;
  /** Written up to here. */
  start: number;
  /** Filled up to here. */
  end: number;
  /** No more frames go in (the next character did not fit). */
  sealed: boolean;
}

export class OutputQueue {
  #sink: ByteSink;
  #limits: OutputLimits;
  #encoder = new TextEncoder();
  /** Oldest first; the last one takes new frames. */
  #blocks: Block[] = [];
  /** Written-out blocks kept for reuse: enough for the high mark, so a flood allocates none. */
  #spare: Uint8Array[] = [];
  #maxSpare: number;
  #allocated = 0;
  /** Bytes ever queued and ever written: positions in one endless stream. */
  #queued = 0;
  #written = 0;
  /** Stream position where each queued frame ends, oldest first from `#firstEnd`. */
  #ends: number[] = [];
  #firstEnd = 0;
  #gate = new Valve();
  #writing = false;
  #broken?: Error;
  #idle: (() => void)[] = [];
  /** Called once when a write fails (the host closed our stdout). */
  onBroken?: (error: Error) => void;

  constructor(sink: ByteSink, limits: OutputLimits = OUTPUT_LIMITS) {
    this.#sink = sink;
    this.#limits = limits;
    this.#maxSpare = Math.ceil(limits.highBytes / BLOCK_BYTES) + 1;
  }

  /** Open while the host keeps up with the answers. */
  get gate(): Gate {
    return this.#gate;
  }

  /** Bytes waiting to be written. */
  get bytes(): number {
    return this.#queued - this.#written;
  }

  /** Frames waiting to be written (a frame counts until its last byte is written). */
  get frames(): number {
    return this.#ends.length - this.#firstEnd;
  }

  /** Blocks allocated so far: after a first flood, reuse keeps this flat. */
  get blocksAllocated(): number {
    return this.#allocated;
  }

  /** Queues one whole frame (its newline included); throws once stdout is broken. */
  push(frame: string): void {
    if (this.#broken) throw this.#broken;
    let rest = frame;
    for (;;) {
      const block = this.#fillable();
      const { read, written } = this.#encoder.encodeInto(rest, block.bytes.subarray(block.end));
      block.end += written;
      this.#queued += written;
      if (read === rest.length) break;
      // The block is full (encodeInto never splits a character); go on in a fresh one.
      block.sealed = true;
      rest = rest.substring(read);
    }
    this.#ends.push(this.#queued);
    this.#account();
    if (!this.#writing) this.#drain();
  }

  /** Resolves once every queued frame is written, or stdout broke. */
  flushed(): Promise<void> {
    if (!this.#writing) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #fillable(): Block {
    const last = this.#blocks.at(-1);
    if (last && !last.sealed && last.end < BLOCK_BYTES) return last;
    const block = {
      bytes: this.#spare.pop() ?? this.#allocate(),
      start: 0,
      end: 0,
      sealed: false,
    };
    this.#blocks.push(block);
    return block;
  }

  #allocate(): Uint8Array {
    this.#allocated++;
    return new Uint8Array(BLOCK_BYTES);
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#written < this.#queued) {
        const block = this.#blocks[0];
        const n = await this.#sink.write(block.bytes.subarray(block.start, block.end));
        block.start += n;
        this.#written += n;
        if (block.start === block.end) this.#recycle(block);
        this.#forgetWrittenFrames();
        this.#account();
      }
    } catch (error) {
      this.#broken = error instanceof Error ? error : new Error(String(error));
      this.#blocks = [];
      this.#written = this.#queued;
      this.#forgetWrittenFrames();
      this.#account();
      this.onBroken?.(this.#broken);
    } finally {
      this.#writing = false;
      const idle = this.#idle;
      this.#idle = [];
      for (const wake of idle) wake();
    }
  }

  /** A written-out block: the one still being filled starts over, any other is set aside. */
  #recycle(block: Block): void {
    if (this.#blocks.length === 1 && !block.sealed) {
      block.start = block.end = 0;
      return;
    }
    this.#blocks.shift();
    if (this.#spare.length < this.#maxSpare) this.#spare.push(block.bytes);
  }

  #forgetWrittenFrames(): void {
    while (this.#firstEnd < this.#ends.length && this.#ends[this.#firstEnd] <= this.#written) {
      this.#firstEnd++;
    }
    if (this.#firstEnd === this.#ends.length) {
      this.#ends = [];
      this.#firstEnd = 0;
    } else if (this.#firstEnd >= 1024 && this.#firstEnd * 2 >= this.#ends.length) {
      this.#ends = this.#ends.slice(this.#firstEnd);
      this.#firstEnd = 0;
    }
  }

  #account(): void {
    const { bytes, frames } = this;
    const limits = this.#limits;
    if (bytes > limits.highBytes || frames > limits.highFrames) this.#gate.set(false);
    else if (bytes <= limits.lowBytes && frames <= limits.lowFrames) this.#gate.set(true);
  }
}
