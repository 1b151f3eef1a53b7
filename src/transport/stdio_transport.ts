/**
 * MCP stdio transport over Deno's own stdin/stdout. Unlike the SDK's transport it answers
 * malformed and oversize frames with JSON-RPC errors and keeps serving, and it is the only
 * code that writes to stdout. It reads and writes the raw resources (no web streams), which
 * saves a layer of promise and queue work on every frame.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { type Frame, LineSplitter, MAX_FRAME_BYTES } from "./frames.ts";
import { type Gate, Valve } from "./valve.ts";
import { MAX_IN_FLIGHT, MAX_WAITING } from "./call_limiter.ts";

/** How long stdin EOF waits for in-flight answers; keeps exit well inside one second. */
const EOF_GRACE_MS = 600;
const READ_CHUNK = 64 * 1024;
/**
 * Flow control: past this many answer bytes waiting for the host to read stdout, the bridge
 * stops taking frames from stdin (and the call limiter starts no call) until the backlog is
 * down to the low mark. Requests then wait in the host's pipe, not in our memory.
 */
export const OUTPUT_HIGH_WATER = 2 * 1024 * 1024;
export const OUTPUT_LOW_WATER = 512 * 1024;

/** Deno.stdin / Deno.stdout, or stand-ins in tests. */
export interface StdioPorts {
  input: { read(buffer: Uint8Array): Promise<number | null> };
  output: { write(bytes: Uint8Array): Promise<number> };
}

export class FramedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called once when the transport has closed for good (stdin ended or stdout broke). */
  onEnd?: () => void;
  /** Applied to every serialised frame before it is written (credential redaction). */
  scrub: (json: string) => string = (json) => json;

  #ports: StdioPorts;
  #splitter: LineSplitter;
  #closed = false;
  #encoder = new TextEncoder();
  /** Ids of requests not yet answered, so stdin EOF can wait for their answers. */
  #pending = new Set<string | number>();
  #drained?: () => void;
  /** Frames are written one after another, never interleaved. */
  #writes: Promise<void> = Promise.resolve();
  /** Bytes handed to `send` and not yet written to stdout. */
  #backlog = 0;
  #output = new Valve();
  /** Tool calls taken from stdin and not yet answered or cancelled. */
  #calls = new Set<string | number>();
  #callRoom = new Valve();
  #maxPendingCalls: number;

  constructor(
    ports: StdioPorts = { input: Deno.stdin, output: Deno.stdout },
    maxFrameBytes = MAX_FRAME_BYTES,
    /**
     * Tool calls pending at once before stdin is held: by default exactly what the call limiter
     * runs or queues, so a host that pipelines is slowed down rather than refused as busy.
     */
    maxPendingCalls = MAX_IN_FLIGHT + MAX_WAITING,
  ) {
    this.#ports = ports;
    this.#maxPendingCalls = maxPendingCalls;
    this.#splitter = new LineSplitter(maxFrameBytes);
  }

  /** Open while stdout keeps up; closed past `OUTPUT_HIGH_WATER` bytes of unread answers. */
  get outputGate(): Gate {
    return this.#output;
  }

  /** Answer bytes waiting for the host to read them. */
  get backlogBytes(): number {
    return this.#backlog;
  }

  start(): Promise<void> {
    this.#pump().catch((error) => this.onerror?.(asError(error)));
    return Promise.resolve();
  }

  async #pump(): Promise<void> {
    const buffer = new Uint8Array(READ_CHUNK);
    try {
      while (!this.#closed) {
        const n = await this.#ports.input.read(buffer);
        if (n === null) break;
        await this.#dispatch(this.#splitter.push(buffer.subarray(0, n)));
      }
      if (!this.#closed) await this.#dispatch(this.#splitter.end());
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

  /** Holds a frame while stdout is backed up, and a tool call while too many are pending. */
  async #admit(frame: Frame): Promise<void> {
    while (!this.#closed) {
      if (!this.#output.isOpen) {
        await this.#output.whenOpen();
        continue;
      }
      if (!this.#callRoom.isOpen && frame.kind === "message" && isToolCall(frame)) {
        await this.#callRoom.whenOpen();
        continue;
      }
      return;
    }
  }

  #trackCall(id: string | number, pending: boolean): void {
    if (pending) this.#calls.add(id);
    else if (!this.#calls.delete(id)) return;
    this.#callRoom.set(this.#calls.size < this.#maxPendingCalls);
  }

  async #dispatch(frames: Frame[]): Promise<void> {
    for (const frame of frames) {
      await this.#admit(frame);
      if (this.#closed) return;
      if (frame.kind === "message") {
        const m = frame.message as {
          id?: string | number;
          method?: string;
          params?: { requestId?: unknown };
        };
        if (m.method !== undefined && m.id !== undefined) {
          this.#pending.add(m.id);
          if (m.method === "tools/call") this.#trackCall(m.id, true);
        }
        // A cancelled request is never answered (the SDK drops its result): stop waiting for it.
        if (m.method === "notifications/cancelled" && m.id === undefined) {
          const cancelled = m.params?.requestId;
          if (typeof cancelled === "string" || typeof cancelled === "number") {
            this.#trackCall(cancelled, false);
            if (this.#pending.delete(cancelled) && this.#pending.size === 0) {
              queueMicrotask(() => this.#drained?.());
            }
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

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("stdio transport is closed"));
    const m = message as { id?: string | number; method?: string };
    if (m.method === undefined && m.id !== undefined && this.#pending.delete(m.id)) {
      this.#trackCall(m.id, false);
      if (this.#pending.size === 0) queueMicrotask(() => this.#drained?.());
    }
    const bytes = this.#encoder.encode(this.scrub(JSON.stringify(message)) + "\n");
    this.#account(bytes.length);
    const write = this.#writes.then(() => this.#writeAll(bytes)).finally(() =>
      this.#account(-bytes.length)
    );
    this.#writes = write.catch(() => {});
    return write.catch(async (error) => {
      // The host closed our stdout: nobody can hear us any more, so shut down.
      await this.close();
      throw asError(error);
    });
  }

  #account(delta: number): void {
    this.#backlog += delta;
    if (this.#backlog > OUTPUT_HIGH_WATER) this.#output.set(false);
    else if (this.#backlog <= OUTPUT_LOW_WATER) this.#output.set(true);
  }

  async #writeAll(bytes: Uint8Array): Promise<void> {
    let written = 0;
    while (written < bytes.length) {
      written += await this.#ports.output.write(bytes.subarray(written));
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Wakes a pump that is holding, so it sees the close.
    this.#output.set(true);
    this.#callRoom.set(true);
    await this.#writes;
    this.onclose?.();
    this.onEnd?.();
  }
}

function isToolCall(frame: Frame & { kind: "message" }): boolean {
  return (frame.message as { method?: string }).method === "tools/call";
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
