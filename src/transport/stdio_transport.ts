/**
 * MCP stdio transport over Deno's own stdin/stdout. Unlike the SDK's transport it answers
 * malformed and oversize frames with JSON-RPC errors and keeps serving, and it is the only
 * code that writes to stdout. It reads and writes the raw resources (no web streams), which
 * saves a layer of promise and queue work on every frame.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { type Frame, LineSplitter, MAX_FRAME_BYTES } from "./frames.ts";
import type { Gate } from "./valve.ts";
import { type ByteSink, OUTPUT_LIMITS, type OutputLimits, OutputQueue } from "./output_queue.ts";
import { PENDING_LIMITS, type PendingLimits, PendingRequests } from "./pending_requests.ts";

/** How long stdin EOF waits for in-flight answers; keeps exit well inside one second. */
const EOF_GRACE_MS = 600;
const READ_CHUNK = 64 * 1024;

/** Deno.stdin / Deno.stdout, or stand-ins in tests. */
export interface StdioPorts {
  input: { read(buffer: Uint8Array): Promise<number | null> };
  output: ByteSink;
}

/**
 * Flow control: a frame is taken from stdin only while the host keeps up with our answers (the
 * output queue's gate: frames and bytes waiting) and while pending requests are within their
 * bounds (tool calls by count and bytes, others by count). Otherwise requests wait in the
 * host's pipe, not in our memory.
 */
export interface FlowLimits {
  maxFrameBytes: number;
  output: OutputLimits;
  pending: PendingLimits;
}

export const FLOW_LIMITS: Readonly<FlowLimits> = {
  maxFrameBytes: MAX_FRAME_BYTES,
  output: OUTPUT_LIMITS,
  pending: PENDING_LIMITS,
};

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
  /** Requests not yet answered: bounded, and waited for at stdin EOF. */
  #pending: PendingRequests;
  #drained?: () => void;
  #output: OutputQueue;
  /** Wakes a pump that is holding stdin, so it sees a close. */
  #wakeHeld?: () => void;

  constructor(
    ports: StdioPorts = { input: Deno.stdin, output: Deno.stdout },
    limits: Partial<FlowLimits> = {},
  ) {
    const { maxFrameBytes, output, pending } = { ...FLOW_LIMITS, ...limits };
    this.#ports = ports;
    this.#splitter = new LineSplitter(maxFrameBytes);
    this.#output = new OutputQueue(ports.output, output);
    this.#output.onBroken = (error) => {
      // The host closed our stdout: nobody can hear us any more, so shut down.
      this.onerror?.(error);
      this.close();
    };
    this.#pending = new PendingRequests(pending);
  }

  /** Open while the host keeps up with our answers; the call limiter starts no call otherwise. */
  get outputGate(): Gate {
    return this.#output.gate;
  }

  /** Answers waiting for the host to read them: frames and bytes. */
  get backlog(): { frames: number; bytes: number } {
    return { frames: this.#output.frames, bytes: this.#output.bytes };
  }

  /** Tool calls taken from stdin and not yet answered: count and frame bytes. */
  get pendingCalls(): { count: number; bytes: number } {
    return this.#pending.calls;
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

  /** Holds a frame while stdout is backed up, and a request while its kind's bounds are full. */
  async #admit(frame: Frame): Promise<void> {
    while (!this.#closed) {
      if (!this.#output.gate.isOpen) {
        await this.#hold(this.#output.gate.whenOpen());
      } else if (!this.#admits(frame)) {
        await this.#hold(this.#pending.changed());
      } else return;
    }
  }

  #admits(frame: Frame): boolean {
    if (frame.kind !== "message") return true;
    const { id, method } = frame.message as { id?: unknown; method?: unknown };
    if (id === undefined || typeof method !== "string") return true;
    return this.#pending.admits(method, frame.bytes);
  }

  async #hold(until: Promise<void>): Promise<void> {
    const woken = new Promise<void>((resolve) => this.#wakeHeld = resolve);
    await Promise.race([until, woken]);
    this.#wakeHeld = undefined;
  }

  async #dispatch(frames: Iterable<Frame>): Promise<void> {
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
          this.#pending.add(m.id, m.method, frame.bytes);
        }
        // A cancelled request is never answered (the SDK drops its result): stop waiting for it.
        if (m.method === "notifications/cancelled" && m.id === undefined) {
          const cancelled = m.params?.requestId;
          if (typeof cancelled === "string" || typeof cancelled === "number") {
            this.#settle(cancelled);
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

  /**
   * Queues one frame for stdout and resolves at once: the SDK keeps a request's whole context
   * (arguments included) until its send resolves, so waiting here for the host to read would
   * pin every unread answer's request. The output queue's gate holds stdin instead.
   */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("stdio transport is closed"));
    const m = message as { id?: string | number; method?: string };
    if (m.method === undefined && m.id !== undefined) this.#settle(m.id);
    try {
      this.#output.push(this.scrub(JSON.stringify(message)) + "\n");
    } catch (error) {
      return Promise.reject(asError(error));
    }
    return Promise.resolve();
  }

  /** Stops waiting for an answered or cancelled request; the last one wakes a waiting EOF. */
  #settle(id: string | number): void {
    if (this.#pending.remove(id) && this.#pending.size === 0) {
      queueMicrotask(() => this.#drained?.());
    }
  }

  /** Resolves once every answer queued so far is written (or stdout broke). */
  flushed(): Promise<void> {
    return this.#output.flushed();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#wakeHeld?.();
    await this.#output.flushed();
    this.onclose?.();
    this.onEnd?.();
  }
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
