/**
 * What a frame would cost to parse, read from its bytes without parsing it. A parsed frame
 * costs far more than its bytes when it is made of small containers: `{},` is 3 bytes and an
 * object of about 64 bytes on the heap, so a 1 MiB frame of them holds over 20 MiB once parsed,
 * and a frame nested half a million deep about 28 MiB. Counting bytes alone cannot bound that,
 * so every line is scanned first: one pass over its bytes counting nesting depth and values,
 * skipping string contents with `indexOf`, which costs a millisecond or two on 1 MiB and keeps
 * nothing. The top-level `id` and `method` are picked up on the way, so that a frame refused
 * unparsed can still be answered as what it is (a tool call, a request, an answer).
 */
/** A JSON-RPC request id as this transport keeps it. */
export type RequestId = string | number;

/** Heap bytes one JSON value costs once parsed, at most (measured: 64 for `{}` in an array). */
export const COST_PER_VALUE = 64;
/** Heap bytes one byte of text costs once decoded and parsed (the line's text and its strings). */
const COST_PER_BYTE = 2;

export interface FrameScan {
  bytes: number;
  /** The deepest nesting of objects and arrays (a bare `{}` is 1). */
  depth: number;
  /**
   * JSON values and member names, as the punctuation outside strings counts them: each `{`,
   * `[`, `,` and `:`. That is one per container, member name and element after the first.
   */
  values: number;
  /** What parsing it would hold on the heap, at most: COST_PER_BYTE and COST_PER_VALUE. */
  cost: number;
  /** The root object's `id` when it is a string or an integer; null when absent or other. */
  id: RequestId | null;
  /** Whether the root object has an `id` member at all (a request or an answer). */
  hasId: boolean;
  /** The root object's `method` when it is a string. */
  method?: string;
  /** Whether the root object has a `result` or `error` member (an answer to our request). */
  answer: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** What each byte means to the scan, looked up rather than compared case by case. */
const OTHER = 0;
const STRING = 1;
const OPEN = 2;
const CLOSE = 3;
const SEPARATOR = 4;
const KIND = new Uint8Array(256);
KIND[QUOTE] = STRING;
KIND[OPEN_OBJECT] = KIND[OPEN_ARRAY] = OPEN;
KIND[CLOSE_OBJECT] = KIND[CLOSE_ARRAY] = CLOSE;
KIND[COMMA] = KIND[COLON] = SEPARATOR;

/** Longest top-level string this scan decodes (an id or a method name); longer ones are skipped. */
const MAX_MEMBER_TEXT = 256;

function parseCost(bytes: number, values: number): number {
  return COST_PER_BYTE * bytes + COST_PER_VALUE * values;
}

/** Scans one line (without its newline). Never throws, whatever the bytes. */
export function scanFrame(line: Uint8Array): FrameScan {
  const n = line.length;
  const inner: Nested = { end: 0, depth: 0, values: 0 };
  let depth = 0;
  let deepest = 0;
  let values = 0;
  // The root object's members: whether the next string at depth 1 is a name, and the last name.
  let expectName = false;
  let name: string | undefined;
  let id: RequestId | null = null;
  let hasId = false;
  let method: string | undefined;
  let answer = false;
  let i = 0;
  while (i < n) {
    const byte = line[i];
    const kind = KIND[byte];
    if (kind === OTHER) {
      if (depth === 1 && !expectName && name === "id" && isNumberStart(byte)) {
        const end = numberEnd(line, i);
        id = integerAt(line, i, end);
        i = end;
      } else {
        i++;
      }
      continue;
    }
    if (kind === STRING) {
      const end = stringEnd(line, i);
      if (depth === 1) {
        const text = end - i <= MAX_MEMBER_TEXT ? stringAt(line, i, end) : undefined;
        if (expectName) {
          name = text;
          if (name === "id") hasId = true;
          else if (name === "result" || name === "error") answer = true;
        } else if (name === "method") {
          method = text;
        } else if (name === "id" && text !== undefined) {
          id = text;
        }
      }
      i = end + 1;
      continue;
    }
    if (kind === OPEN && depth >= 1) {
      // A member's value (or an element of a root array): counted in a tighter loop.
      nested(line, i, inner);
      values += inner.values;
      deepest = Math.max(deepest, depth + inner.depth);
      i = inner.end;
      continue;
    }
    if (kind === OPEN) {
      values++;
      depth++;
      deepest = Math.max(deepest, depth);
      expectName = byte === OPEN_OBJECT;
    } else if (kind === CLOSE) {
      depth--;
    } else {
      values++;
      if (depth === 1) expectName = byte === COMMA;
    }
    i++;
  }
  return {
    bytes: n,
    depth: deepest,
    values,
    cost: parseCost(n, values),
    id,
    hasId,
    ...(method !== undefined ? { method } : {}),
    answer,
  };
}

/** What `nested` found: where the container ended, how deep it went, how many values. */
interface Nested {
  end: number;
  depth: number;
  values: number;
}

/**
 * Counts the container opening at `start` through its close (or the line's end): the hot
 * loop, kept small so it stays fast on a megabyte of punctuation (about 3 ms).
 */
function nested(line: Uint8Array, start: number, into: Nested): void {
  const n = line.length;
  let depth = 0;
  let deepest = 0;
  let values = 0;
  let i = start;
  while (i < n) {
    const kind = KIND[line[i]];
    if (kind === OTHER) {
      i++;
    } else if (kind === STRING) {
      i = stringEnd(line, i) + 1;
    } else if (kind === OPEN) {
      values++;
      if (++depth > deepest) deepest = depth;
      i++;
    } else if (kind === CLOSE) {
      i++;
      if (--depth === 0) break;
    } else {
      values++;
      i++;
    }
  }
  into.end = i;
  into.depth = deepest;
  into.values = values;
}

/** The index of the quote that closes the string opening at `start`, or the line's end. */
function stringEnd(line: Uint8Array, start: number): number {
  let at = line.indexOf(QUOTE, start + 1);
  while (at !== -1) {
    let slashes = 0;
    for (let k = at - 1; k > start && line[k] === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return at;
    at = line.indexOf(QUOTE, at + 1);
  }
  return line.length;
}

const decoder = new TextDecoder();

/** The string from `start` to `end` (its quotes included), or undefined when it is not JSON. */
function stringAt(line: Uint8Array, start: number, end: number): string | undefined {
  try {
    const value: unknown = JSON.parse(decoder.decode(line.subarray(start, end + 1)));
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

function isNumberStart(byte: number): boolean {
  return byte === 0x2d || (byte >= 0x30 && byte <= 0x39);
}

function numberEnd(line: Uint8Array, start: number): number {
  let i = start + 1;
  while (i < line.length && isNumberByte(line[i])) i++;
  return i;
}

function isNumberByte(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || byte === 0x2e || byte === 0x2d || byte === 0x2b ||
    byte === 0x65 || byte === 0x45;
}

/** A JSON-RPC id read as a number: a safe integer, or null. */
function integerAt(line: Uint8Array, start: number, end: number): number | null {
  if (end - start > 20) return null;
  const value = Number(decoder.decode(line.subarray(start, end)));
  return Number.isSafeInteger(value) ? value : null;
}
