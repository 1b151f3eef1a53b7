/**
 * Line framing for MCP over stdio, with hard bounds per frame. A frame over the byte bound is
 * never buffered whole or parsed: we keep only a short head and tail, so that the error we
 * answer can still carry the request id when it is plainly visible at the top level. A frame
 * within it is scanned before it is parsed (frame_scan.ts): one nested too deep, or holding too
 * many values, would cost many times its bytes once parsed, so it is refused unparsed too.
 */
import { isObject } from "../shared/json.ts";
import { concatBytes } from "../shared/bytes.ts";
import { isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/server";
import { type FrameScan, type RequestId, scanFrame } from "./frame_scan.ts";

export const MAX_FRAME_BYTES = 1024 * 1024;
const EDGE_BYTES = 256;

/**
 * What one frame may be. Depth: tool arguments may nest 64 levels (the catalogue names the
 * field deeper than that), inside the envelope's own three; no MCP message needs more. Values:
 * a stack definition of hundreds of components holds a few thousand; 100,000 values parse to
 * about 6 MiB at most, where 350,000 empty objects (a 1 MiB frame) parsed to over 21 MiB.
 */
export interface FrameLimits {
  maxBytes: number;
  maxDepth: number;
  maxValues: number;
}

export const FRAME_LIMITS: Readonly<FrameLimits> = {
  maxBytes: MAX_FRAME_BYTES,
  maxDepth: 128,
  maxValues: 100_000,
};

export type { RequestId };

/** A refused frame's answer: a JSON-RPC error, or a tool error when it was a tool call. */
export interface Reject {
  kind: "reject";
  id: RequestId | null;
  code: number;
  message: string;
  /** Why a frame within the byte bound was refused unparsed (the error's `data`). */
  data?: { reason: "message_too_deep" | "message_too_many_values"; found: number; limit: number };
  /**
   * A tool call (answered with a tool error), or an answer to a request of ours (its id is
   * ours, so the host's error carries none, and our request fails at once).
   */
  was?: "call" | "answer";
}

type Frame =
  /** `cost`: what holding the parsed message costs at most (frame_scan.ts). */
  | { kind: "message"; message: JSONRPCMessage; cost: number }
  | Reject;

/**
 * A line within every bound, not parsed yet: its bytes are valid only until the splitter's
 * generator resumes, so the caller parses it (`decodeLine`) before asking for the next one.
 */
export interface Line {
  kind: "line";
  bytes: Uint8Array;
  scan: FrameScan;
}

/** JSON-RPC error codes used for frames we cannot hand to the server. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

/**
 * Splits a byte stream into lines and judges each one before it is parsed: a line within every
 * bound comes out as a `Line`, the rest as a `Reject`. A line inside one read is judged where it
 * lies; a line spanning reads is gathered in one buffer that grows to the longest line seen (at
 * most the byte bound) and is reused, so large frames allocate nothing per frame outside the JS
 * heap.
 */
export class LineSplitter {
  #line = new Uint8Array(0);
  #size = 0;
  #oversize = false;
  #head = new Uint8Array(0);
  #tail = new Uint8Array(0);
  readonly #limits: FrameLimits;

  constructor(limits: Partial<FrameLimits> = {}) {
    this.#limits = { ...FRAME_LIMITS, ...limits };
  }

  get maxBytes(): number {
    return this.#limits.maxBytes;
  }

  /**
   * The lines completed by this chunk, in order. A held reader keeps bytes, not parsed
   * messages: parse each `Line` before asking for the next, and iterate to the end before the
   * next push.
   */
  *push(chunk: Uint8Array): Generator<Line | Reject> {
    let start = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
      const line = chunk.subarray(start, i);
      start = i + 1;
      let frame: Line | Reject | undefined;
      if (this.#size === 0 && !this.#oversize && line.length <= this.maxBytes) {
        frame = isBlank(line) ? undefined : this.#judge(line);
      } else {
        this.#append(line);
        frame = this.#finish();
      }
      if (frame) yield frame;
    }
    this.#append(chunk.subarray(start));
  }

  /** Flushes a last line that had no newline when the stream ended. */
  end(): (Line | Reject)[] {
    const frame = this.#finish();
    return frame ? [frame] : [];
  }

  #append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (!this.#oversize && this.#size + bytes.length > this.maxBytes) {
      const held = this.#line.subarray(0, this.#size);
      this.#head = held.slice(0, EDGE_BYTES);
      this.#tail = held.slice(-EDGE_BYTES);
      this.#oversize = true;
    }
    if (this.#oversize) {
      this.#size += bytes.length;
      const joined = concatBytes([this.#tail, bytes], this.#tail.length + bytes.length);
      this.#tail = joined.slice(-EDGE_BYTES);
      if (this.#head.length < EDGE_BYTES) {
        this.#head = concatBytes([this.#head, bytes], this.#head.length + bytes.length)
          .slice(0, EDGE_BYTES);
      }
      return;
    }
    const needed = this.#size + bytes.length;
    if (needed > this.#line.length) {
      const grown = new Uint8Array(
        Math.min(this.maxBytes, Math.max(needed, 2 * this.#line.length)),
      );
      grown.set(this.#line.subarray(0, this.#size));
      this.#line = grown;
    }
    this.#line.set(bytes, this.#size);
    this.#size = needed;
  }

  #finish(): Line | Reject | undefined {
    const size = this.#size;
    const oversize = this.#oversize;
    const head = this.#head;
    const tail = this.#tail;
    this.#size = 0;
    this.#oversize = false;
    this.#head = new Uint8Array(0);
    this.#tail = new Uint8Array(0);
    if (oversize) {
      return {
        kind: "reject",
        id: visibleId(head, tail),
        code: INVALID_REQUEST,
        message: `Frame of ${size} bytes exceeds the ${this.maxBytes}-byte limit; it was not read.`,
      };
    }
    // The buffer is reused by the next line only after the caller has parsed this one.
    const body = this.#line.subarray(0, size);
    if (size === 0 || isBlank(body)) return undefined;
    return this.#judge(body);
  }

  /** The line to parse, or its refusal when parsing it would cost too much. */
  #judge(bytes: Uint8Array): Line | Reject {
    const scan = scanFrame(bytes);
    const refusal = overBound(scan, this.#limits);
    return refusal ?? { kind: "line", bytes, scan };
  }
}

const count = (n: number) => n.toLocaleString("en-US");

/** The refusal of a scanned frame over the depth or value bound; undefined within both. */
function overBound(scan: FrameScan, limits: FrameLimits): Reject | undefined {
  let data: NonNullable<Reject["data"]>;
  let what: string;
  if (scan.depth > limits.maxDepth) {
    data = { reason: "message_too_deep", found: scan.depth, limit: limits.maxDepth };
    what = `nests ${count(scan.depth)} levels deep; this bridge reads at most ${
      count(limits.maxDepth)
    } levels, so it was not parsed.`;
  } else if (scan.values > limits.maxValues) {
    data = { reason: "message_too_many_values", found: scan.values, limit: limits.maxValues };
    what = `holds about ${count(scan.values)} JSON values (containers, names and elements); ` +
      `this bridge reads at most ${count(limits.maxValues)} in one message, so it was not parsed.`;
  } else {
    return undefined;
  }
  const was = scan.method === "tools/call" && scan.hasId
    ? "call"
    : scan.answer && scan.method === undefined
    ? "answer"
    : undefined;
  const subject = was === "answer" ? "The answer" : was === "call" ? "The tool call" : "The frame";
  return {
    kind: "reject",
    id: scan.id,
    code: INVALID_REQUEST,
    message: `${subject} ${what}`,
    data,
    ...(was ? { was } : {}),
  };
}

const lenientUtf8 = new TextDecoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Parses one line and checks the JSON-RPC 2.0 envelope the SDK expects. Invalid UTF-8 always
 * decodes to U+FFFD; only a line showing one is decoded again strictly (the lenient decoder is
 * about five times faster on a 1 MiB frame).
 */
export function decodeFrame(bytes: Uint8Array, cost = scanFrame(bytes).cost): Frame {
  let text = lenientUtf8.decode(bytes);
  if (text.includes("\uFFFD")) {
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      return reject(null, PARSE_ERROR, "Frame is not valid UTF-8.");
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof RangeError ? "nesting too deep" : "invalid JSON";
    return reject(null, PARSE_ERROR, `Parse error: ${detail}.`);
  }
  return checkEnvelope(value, cost);
}

/** Parses a line the splitter judged within bounds. */
export function decodeLine(line: Line): Frame {
  return decodeFrame(line.bytes, line.scan.cost);
}

function checkEnvelope(value: unknown, cost: number): Frame {
  if (Array.isArray(value)) {
    return reject(
      null,
      INVALID_REQUEST,
      "JSON-RPC batches are not supported; send one message per line.",
    );
  }
  if (!isObject(value)) {
    return reject(null, INVALID_REQUEST, "A JSON-RPC message must be an object.");
  }
  const msg = value;
  const id = validId(msg.id) ? msg.id : null;
  if (msg.jsonrpc !== "2.0") return reject(id, INVALID_REQUEST, 'Missing "jsonrpc": "2.0".');
  const hasId = "id" in msg;
  if (hasId && !validId(msg.id)) {
    return reject(null, INVALID_REQUEST, "The id must be a string or an integer.");
  }
  if ("method" in msg) {
    if (typeof msg.method !== "string" || msg.method.length === 0) {
      return reject(id, INVALID_REQUEST, "The method must be a non-empty string.");
    }
    if (
      "params" in msg &&
      (typeof msg.params !== "object" || msg.params === null || Array.isArray(msg.params))
    ) {
      return reject(id, INVALID_REQUEST, "The params must be an object.");
    }
    // The SDK silently drops a message its strict schemas refuse, and the host would wait
    // forever: pass on only the JSON-RPC members, and answer what it would still refuse.
    const message = {
      jsonrpc: "2.0",
      ...(hasId ? { id: msg.id } : {}),
      method: msg.method,
      ...("params" in msg ? { params: msg.params } : {}),
    } as JSONRPCMessage;
    if (hasId && !isJSONRPCRequest(message)) {
      return reject(id, INVALID_REQUEST, "The params do not match MCP's request envelope (_meta).");
    }
    return { kind: "message", message, cost };
  }
  if (hasId && ("result" in msg || "error" in msg)) {
    const body = "result" in msg ? { result: msg.result } : { error: msg.error };
    const message = { jsonrpc: "2.0", id: msg.id, ...body } as JSONRPCMessage;
    return { kind: "message", message, cost };
  }
  return reject(id, INVALID_REQUEST, "Not a JSON-RPC request, notification or response.");
}

function validId(id: unknown): id is RequestId {
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id));
}

function reject(id: RequestId | null, code: number, message: string): Frame {
  return { kind: "reject", id, code, message };
}

const HEAD_ID =
  /^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"\\]*"\s*,)*\s*"id"\s*:\s*(-?\d{1,15}|"[^"\\]{0,128}")/;
const TAIL_ID = /"id"\s*:\s*(-?\d{1,15}|"[^"\\]{0,128}")\s*\}\s*$/;

/**
 * The id of an oversize request when it is unambiguous from the edges: the first key of the
 * root object, or the last member before the root closes. Anything else answers `id: null`.
 */
function visibleId(head: Uint8Array, tail: Uint8Array): RequestId | null {
  const lenient = new TextDecoder();
  const match = HEAD_ID.exec(lenient.decode(head)) ?? TAIL_ID.exec(lenient.decode(tail));
  if (!match) return null;
  return match[1].startsWith('"') ? match[1].slice(1, -1) : Number(match[1]);
}

function isBlank(bytes: Uint8Array): boolean {
  return bytes.every((b) => b === 32 || b === 9 || b === 13);
}
