/**
 * MCP stdio transport over Deno's own stdin/stdout. Unlike the SDK's transport it answers
 * malformed and oversize frames with JSON-RPC errors and keeps serving, and it is the only
 * code that writes to stdout.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { type Frame, LineSplitter, MAX_FRAME_BYTES } from "./frames.ts";

/** How long stdin EOF waits for in-flight answers; keeps exit well inside one second. */
const EOF_GRACE_MS = 600;

export interface StdioStreams {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
}

export class FramedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called once when the transport has closed for good (stdin ended or stdout broke). */
  onEnd?: () => void;

  #streams: StdioStreams;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #reader?: ReadableStreamDefaultReader<Uint8Array>;
  #splitter: LineSplitter;
  #closed = false;
  #encoder = new TextEncoder();
  /** Ids of requests not yet answered, so stdin EOF can wait for their answers. */
  #pending = new Set<string | number>();
  #drained?: () => void;
  #lastWrite: Promise<void> = Promise.resolve();

  constructor(
    streams: StdioStreams = { readable: Deno.stdin.readable, writable: Deno.stdout.writable },
    maxFrameBytes = MAX_FRAME_BYTES,
  ) {
    this.#streams = streams;
    this.#splitter = new LineSplitter(maxFrameBytes);
  }

  start(): Promise<void> {
    this.#writer = this.#streams.writable.getWriter();
    this.#reader = this.#streams.readable.getReader();
    this.#pump().catch((error) => this.onerror?.(asError(error)));
    return Promise.resolve();
  }

  async #pump(): Promise<void> {
    const reader = this.#reader!;
    try {
      while (!this.#closed) {
        const { value, done } = await reader.read();
        if (done) break;
        this.#dispatch(this.#splitter.push(value));
      }
      if (!this.#closed) this.#dispatch(this.#splitter.end());
    } catch (error) {
      if (!this.#closed) this.onerror?.(asError(error));
    }
    // The host may write its last requests and close stdin at once (a shell pipe does):
    // answer what is in flight, briefly, before closing.
    await this.#waitForAnswers(EOF_GRACE_MS);
    await this.close();
  }

  #waitForAnswers(limitMs: number): Promise<void> {
    if (this.#pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#drained = undefined;
        resolve();
      };
      const timer = setTimeout(done, limitMs);
      this.#drained = done;
    });
  }

  #dispatch(frames: Frame[]): void {
    for (const frame of frames) {
      if (frame.kind === "message") {
        const m = frame.message as {
          id?: string | number;
          method?: string;
          params?: { requestId?: unknown };
        };
        if (m.method !== undefined && m.id !== undefined) this.#pending.add(m.id);
        // A cancelled request is never answered (the SDK drops its result), so stop waiting
        // for it. (Reliability suite fix: its id stayed pending forever — a leak per cancel —
        // and every later stdin EOF waited the whole grace period for an answer that never came.)
        if (m.method === "notifications/cancelled" && m.id === undefined) {
          const cancelled = m.params?.requestId;
          if (
            (typeof cancelled === "string" || typeof cancelled === "number") &&
            this.#pending.delete(cancelled) && this.#pending.size === 0
          ) {
            queueMicrotask(() => this.#drained?.());
          }
        }
        this.onmessage?.(frame.message);
      } else {
        this.send({
          jsonrpc: "2.0",
          id: frame.id,
          error: { code: frame.code, message: frame.message },
        } as JSONRPCMessage).catch((error) => this.onerror?.(asError(error)));
      }
    }
  }

  /** Writes are serialised by the stream writer, so frames never interleave. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed || !this.#writer) throw new Error("stdio transport is closed");
    const m = message as { id?: string | number; method?: string };
    if (m.method === undefined && m.id !== undefined && this.#pending.delete(m.id)) {
      if (this.#pending.size === 0) queueMicrotask(() => this.#drained?.());
    }
    const write = this.#writer.write(this.#encoder.encode(JSON.stringify(message) + "\n"));
    this.#lastWrite = write.catch(() => {});
    try {
      await write;
    } catch (error) {
      // The host closed our stdout: nobody can hear us any more, so shut down.
      await this.close();
      throw asError(error);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#lastWrite;
    try {
      await this.#reader?.cancel();
    } catch { /* already gone */ }
    try {
      this.#writer?.releaseLock();
    } catch { /* pending writes settle on their own */ }
    this.onclose?.();
    this.onEnd?.();
  }
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
