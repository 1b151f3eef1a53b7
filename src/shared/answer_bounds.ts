/**
 * Every answer bounded. What the daemon (or anyone outside) says reaches a result cut to a
 * stated size, and each cut says so where it happened: a cut string ends in a marker naming
 * its whole length and how to read more. docs/limits.md is generated from ANSWER_BOUNDS.
 */
import { BridgeError } from "./errors.ts";

/** The bounds on what a result carries, and why. */
export const ANSWER_BOUNDS = {
  daemonMessage: {
    max: 1024,
    why:
      "the daemon's longest documented message field is 1,024 characters; cut where it arrives, so the bridge's own words after it survive",
  },
  daemonDetails: {
    max: 8_000,
    why:
      "a daemon error's details (reason, codes, ids) are a few hundred characters; cut where they arrive",
  },
  errorMessage: {
    max: 2_000,
    why: "any error's message, including the bridge's own that quote outside data",
  },
  errorDetails: {
    max: 8_500,
    why:
      "any error's details as JSON: the daemon's (above) plus what the bridge adds; with the message and next step an error stays within the smallest result a host shows whole (12,000 bytes)",
  },
  question: {
    max: 2_000,
    why:
      "each question put to a person (never cut: a change too large for one is asked in parts) and a preview's data.summary; they quote names, paths and commands",
  },
  result: {
    max: 100_000,
    why:
      "a result's data as JSON: Claude Code passes on a tool result of at most 25,000 tokens (about 100,000 characters) by default",
  },
} as const;

/** Longest path segment and issue message quoted back (a key or unknown field may be huge). */
const QUOTED_PART = 64;
const QUOTED_MESSAGE = 300;

/** A validation issue as a result quotes it: `path` dotted, parts and message cut short. */
export function quotedIssue(
  issue: { path: readonly PropertyKey[]; message: string },
): { path: string; message: string } {
  return {
    path: issue.path.map((part) => cutText(String(part), QUOTED_PART)).join("."),
    message: cutText(issue.message, QUOTED_MESSAGE),
  };
}

/** Strings are never cut shorter than this, so a cut value still says what it was. */
const SHORTEST_CUT = 64;
/** Objects with at most this many keys are records, whose fields are never dropped. */
const RECORD_FIELDS = 32;
/**
 * Nesting below this depth is always emptied in a cut value (daemon records nest a few levels):
 * it also keeps the walk's recursion shallow whatever the daemon sends.
 */
const DEEPEST = 64;

const count = (n: number) => n.toLocaleString("en-US");

/**
 * `text` whole when it fits in `max` characters; else its head and a marker, `max` in all.
 * `how` (e.g. "; read it whole with …") follows the length in the marker.
 */
export function cutText(text: string, max: number, how = ""): string {
  if (text.length <= max) return text;
  const marker = `…[cut from ${count(text.length)} characters${how}]`;
  let end = Math.max(0, max - marker.length);
  // Never split a surrogate pair: half a character is not text.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end) + marker;
}

interface Caps {
  /** Longest string kept whole. */
  text: number;
  /** Most items of a list (or entries of a map with more than RECORD_FIELDS keys) kept. */
  entries: number;
  /** Deepest nesting kept: containers below it are emptied. */
  depth: number;
}

interface Tally {
  strings: number;
  entries: number;
}

function shrink(value: unknown, caps: Caps, how: string, depth: number, tally: Tally): unknown {
  if (typeof value === "string") {
    if (value.length <= caps.text) return value;
    tally.strings++;
    return cutText(value, caps.text, how);
  }
  if (typeof value !== "object" || value === null) return value;
  const emptied = depth >= Math.min(caps.depth, DEEPEST);
  if (Array.isArray(value)) {
    const kept = emptied ? 0 : Math.min(value.length, caps.entries);
    tally.entries += value.length - kept;
    return value.slice(0, kept).map((item) => shrink(item, caps, how, depth + 1, tally));
  }
  const entries = Object.entries(value);
  const room = emptied
    ? 0
    : entries.length > RECORD_FIELDS
    ? Math.max(caps.entries, RECORD_FIELDS)
    : entries.length;
  tally.entries += entries.length - Math.min(room, entries.length);
  const out: Record<string, unknown> = {};
  for (const [key, child] of entries.slice(0, room)) {
    out[cutText(key, Math.max(caps.text, SHORTEST_CUT))] = shrink(
      child,
      caps,
      how,
      depth + 1,
      tally,
    );
  }
  return out;
}

/** The longest string, widest collection and deepest nesting in `value`. */
function extent(value: unknown, depth = 0): { text: number; entries: number; depth: number } {
  if (typeof value === "string") return { text: value.length, entries: 0, depth };
  if (typeof value !== "object" || value === null || depth >= DEEPEST) {
    return { text: 0, entries: 0, depth };
  }
  const children = Array.isArray(value) ? value : Object.values(value);
  let longestKey = 0;
  if (!Array.isArray(value)) {
    for (const key in value) longestKey = Math.max(longestKey, key.length);
  }
  let found = { text: longestKey, entries: children.length, depth: depth + 1 };
  for (const child of children) {
    const inner = extent(child, depth + 1);
    found = {
      text: Math.max(found.text, inner.text),
      entries: Math.max(found.entries, inner.entries),
      depth: Math.max(found.depth, inner.depth),
    };
  }
  return found;
}

/** The largest whole number in [low, high] for which `fits` holds (it must be monotone). */
function largest(low: number, high: number, fits: (n: number) => boolean): number | undefined {
  if (high < low || !fits(low)) return undefined;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

export const jsonChars = (value: unknown): number => JSON.stringify(value)?.length ?? 0;

interface Fitted<T> {
  value: T;
  /** How many strings were cut, and how many list items, map entries or nested parts left out. */
  cut: Tally;
}

/**
 * `value` made to measure at most `budget`: first its longest strings are cut (as little as
 * fits), then, only if that is not enough, long lists and maps keep their first entries, and
 * last nesting is emptied below the depth that fits. Types never change, so an object stays an
 * object and its schema still holds. `measure` is how the caller counts (default: JSON).
 */
export function fitValue<T>(
  value: T,
  budget: number,
  how = "",
  measure: (value: unknown) => number = jsonChars,
): Fitted<T> {
  const none = { strings: 0, entries: 0 };
  if (measure(value) <= budget) return { value, cut: none };
  const span = extent(value);
  const attempt = (caps: Caps) => {
    const tally = { strings: 0, entries: 0 };
    return { value: shrink(value, caps, how, 0, tally) as T, cut: tally };
  };
  const fits = (caps: Caps) => measure(attempt(caps).value) <= budget;
  const all = { text: Infinity, entries: Infinity, depth: Infinity };
  const text = largest(SHORTEST_CUT, span.text, (t) => fits({ ...all, text: t }));
  if (text !== undefined) return attempt({ ...all, text });
  const short = { ...all, text: SHORTEST_CUT };
  const entries = largest(1, span.entries, (e) => fits({ ...short, entries: e }));
  if (entries !== undefined) return attempt({ ...short, entries });
  const depth = largest(0, span.depth, (d) => fits({ ...short, entries: 1, depth: d })) ?? 0;
  return attempt({ ...short, entries: 1, depth });
}

/**
 * A note for a record whose lists or maps lost entries (strings say so themselves), added as
 * its `truncated` field when it is an object.
 */
export function withTruncationNote<T>(fitted: Fitted<T>, how: string): T {
  const { value, cut } = fitted;
  if (cut.entries === 0 || typeof value !== "object" || value === null || Array.isArray(value)) {
    return value;
  }
  return {
    ...value,
    truncated: `${count(cut.entries)} list items, map entries or nested parts left out${how}`,
  };
}

/** Room a `truncated` note takes, reserved when a value may need one. */
export const NOTE_ROOM = 300;

/**
 * An error as a result may carry it: message cut to ANSWER_BOUNDS.errorMessage, details fitted
 * to ANSWER_BOUNDS.errorDetails (the next step is the table's, or quotes these details).
 * Applied to every tool error, whoever made it, so none can slip past.
 */
export function boundedError(error: BridgeError): BridgeError {
  const max = ANSWER_BOUNDS.errorMessage.max;
  const message = cutText(error.message, max);
  const fitted = fitValue(error.details, ANSWER_BOUNDS.errorDetails.max - NOTE_ROOM);
  if (message === error.message && fitted.value === error.details) return error;
  const details = withTruncationNote(fitted, "");
  return new BridgeError(error.code, message, error.retryable, details);
}
