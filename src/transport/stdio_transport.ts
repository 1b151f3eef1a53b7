/**
 * MCP stdio transport over Deno's own stdin/stdout. Unlike the SDK's transport it answers
 * malformed and oversize frames with JSON-RPC errors and keeps serving, and it is the only
 * code that writes to stdout. It reads and writes the raw resources (no web streams), which
 * saves a layer of promise and queue work on every frame.
 */
import {
  type CallToolResult,
  CLIENT_INFO_META_KEY,
  type JSONRPCMessage,
  type Transport,
} from "@modelcontextprotocol/server";
import {
  decodeLine,
  FRAME_LIMITS,
  type FrameLimits,
  type Line,
  LineSplitter,
  type Reject,
} from "./frames.ts";
import { BridgeError, Codes } from "../shared/errors.ts";
import { isObject } from "../shared/json.ts";
import type { Gate } from "./valve.ts";
import { type ByteSink, OUTPUT_LIMITS, type OutputLimits, OutputQueue } from "./output_queue.ts";
import { PENDING_LIMITS, type PendingLimits, PendingRequests } from "./pending_requests.ts";
import { REAL_TIMERS, type Timers } from "../shared/signals.ts";

/** How long stdin EOF waits for in-flight answers; keeps exit well inside one second. */
export const EOF_GRACE_MS = 600;
const READ_CHUNK = 64 * 1024;

/** Deno.stdin / Deno.stdout, or stand-ins in tests. */
export interface StdioPorts {
  input: { read(buffer: Uint8Array): Promise<number | null> };
  output: ByteSink;
}

/**
 * Flow control: a frame is read only within its own bounds (bytes, depth, values: frames.ts),
 * and taken from stdin only while the host keeps up with our answers (the output queue's gate:
 * frames and bytes waiting) and while pending requests are within their bounds (by count per
 * kind, and by what their frames cost parsed). Otherwise requests wait in the host's pipe, not
 * in our memory; and a frame waits unparsed, as bytes.
 */
export interface FlowLimits {
  frame: FrameLimits;
  output: OutputLimits;
  pending: PendingLimits;
}

export const FLOW_LIMITS: Readonly<FlowLimits> = {
  frame: FRAME_LIMITS,
  output: OUTPUT_LIMITS,
  pending: PENDING_LIMITS,
};

/**
 * How a tool call refused unparsed is answered: a tool result the host shows its model, for the
 * host that named itself `client` in a message read before (undefined: none did).
 */
type CallRefusal = (error: BridgeError, client: string | undefined) => CallToolResult;

/**
 * What every frame passes, given when the transport is built: there is no transport without
 * them, and no way to change them after.
 */
export interface FrameGuards {
  /** Applied to every serialised frame before it is written (credential redaction). */
  scrub: (json: string) => string;
  /** How a tool call too large to parse is answered: a tool error, marked for its host. */
  refuseCall: CallRefusal;
}

export class FramedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called once when the transport has closed for good (stdin ended or stdout broke). */
  onEnd?: () => void;

  readonly #guards: FrameGuards;
  #ports: StdioPorts;
  #splitter: LineSplitter;
  #closed = false;
  /** Requests not yet answered: bounded, and waited for at stdin EOF. */
  #pending: PendingRequests;
  #drained?: () => void;
  #output: OutputQueue;
  /** The name the host gave itself in the last message that gave one (for refusals). */
  #client?: string;
  /** Wakes a pump that is holding stdin, so it sees a close. */
  #wakeHeld?: () => void;
  /** The EOF grace's timer (a test's, which it fires itself, or the runtime's). */
  #timers: Timers;

  constructor(
    guards: FrameGuards,
    ports: StdioPorts = { input: Deno.stdin, output: Deno.stdout },
    limits: Partial<FlowLimits> = {},
    timers: Timers = REAL_TIMERS,
  ) {
    const { frame, output, pending } = { ...FLOW_LIMITS, ...limits };
    this.#guards = guards;
    this.#ports = ports;
    this.#timers = timers;
    this.#splitter = new LineSplitter(frame);
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

  /** Tool calls taken from stdin and not yet answered, and every pending request's cost. */
  get pendingCalls(): { count: number; cost: number } {
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
        this.#timers.clearTimeout(timer);
        this.#drained = undefined;
        resolve();
      };
      const timer = this.#timers.setTimeout(done, limitMs);
      this.#drained = done;
    });
  }

  /** Holds a frame while stdout is backed up, and a request while its kind's bounds are full. */
  async #admit(frame: Line | Reject): Promise<void> {
    while (!this.#closed) {
      if (!this.#output.gate.isOpen) {
        await this.#hold(this.#output.gate.whenOpen());
      } else if (!this.#admits(frame)) {
        await this.#hold(this.#pending.changed());
      } else return;
    }
  }

  /** Judged on the line's scan, before it is parsed: a held line stays bytes. */
  #admits(frame: Line | Reject): boolean {
    if (frame.kind !== "line") return true;
    const { hasId, method, cost } = frame.scan;
    if (!hasId || method === undefined) return true;
    return this.#pending.admits(method, cost);
  }

  async #hold(until: Promise<void>): Promise<void> {
    const woken = new Promise<void>((resolve) => this.#wakeHeld = resolve);
    await Promise.race([until, woken]);
    this.#wakeHeld = undefined;
  }

  async #dispatch(lines: Iterable<Line | Reject>): Promise<void> {
    for (const line of lines) {
      await this.#admit(line);
      if (this.#closed) return;
      // Parsed only now, once admitted: the generator reuses the line's bytes after this turn.
      const frame = line.kind === "line" ? decodeLine(line) : line;
      if (frame.kind === "reject") {
        this.#refuse(frame);
        continue;
      }
      const m = frame.message as {
        id?: string | number;
        method?: string;
        params?: { requestId?: unknown };
      };
      this.#client = namedClient(m.params) ?? this.#client;
      if (m.method !== undefined && m.id !== undefined) {
        this.#pending.add(m.id, m.method, frame.cost);
      }
      // A cancelled request is never answered (the SDK drops its result): stop waiting for it.
      if (m.method === "notifications/cancelled" && m.id === undefined) {
        const cancelled = m.params?.requestId;
        if (typeof cancelled === "string" || typeof cancelled === "number") {
          this.#settle(cancelled);
        }
      }
      this.onmessage?.(frame.message);
    }
  }

  /**
   * Answers a frame that was not handed to the server. A tool call refused unparsed gets a
   * tool error (hosts show those to the model); an answer to our own request refused unparsed
   * fails that request at once, instead of leaving it to time out.
   */
  #refuse(frame: Reject): void {
    const { id, code, message, data, was } = frame;
    let answer: JSONRPCMessage;
    if (was === "call" && id !== null) {
      const error = new BridgeError(Codes.invalidInput, message, false, { ...data });
      const result = this.#guards.refuseCall(error, this.#client);
      answer = { jsonrpc: "2.0", id, result } as JSONRPCMessage;
    } else {
      const replyId = was === "answer" ? null : id;
      const error = { code, message, ...(data ? { data } : {}) };
      answer = { jsonrpc: "2.0", id: replyId, error } as JSONRPCMessage;
    }
    this.send(answer).catch((error) => this.onerror?.(asError(error)));
    if (was === "answer" && id !== null) {
      this.onmessage?.({ jsonrpc: "2.0", id, error: { code, message } } as JSONRPCMessage);
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
      this.#output.push(this.#guards.scrub(JSON.stringify(message)) + "\n");
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

/**
 * The name a message gives its host: `clientInfo` in `initialize`, or on the 2026-07-28 era the
 * client info in a request's `_meta`. A frame refused unparsed cannot say, so its refusal goes
 * to the host the connection's earlier messages named.
 */
function namedClient(params: unknown): string | undefined {
  if (!isObject(params)) return undefined;
  const meta = params._meta;
  const info = isObject(params.clientInfo)
    ? params.clientInfo
    : isObject(meta)
    ? meta[CLIENT_INFO_META_KEY]
    : undefined;
  return isObject(info) && typeof info.name === "string" ? info.name : undefined;
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
