/**
 * Bridge-side pages over a daemon collection that arrives whole. Items are ordered by a
 * stable key; a cursor carries the last key served plus a fingerprint of the tool and its
 * filters, so a cursor from another listing (or the same listing with other filters) is
 * refused instead of silently returning an odd page.
 */
import { invalidInput, invalidResponse } from "../shared/errors.ts";
import { isObject } from "../shared/json.ts";
import { fitValue, NOTE_ROOM, withTruncationNote } from "../shared/answer_bounds.ts";
import { INPUT_BOUNDS } from "../shared/input_bounds.ts";

export type SortKey = readonly (string | number)[];

/** `k`: the last sort key served; `s`: the scope, the tool + filters fingerprint. */
type CursorBody = { v: 1; s: string; k: SortKey };

export interface PageRequest<T = unknown> {
  scope: string;
  limit: number;
  afterCursor?: string;
  /** An item's size as the model will be shown it (default: its JSON as it is). */
  itemChars?: ItemChars;
  /** How to read one record whole (e.g. its get tool), said by a record cut to fit a page. */
  readWhole: (item: T) => string;
}

/** JSON characters one page item takes in the form the model is shown. */
export type ItemChars = (item: unknown) => number;

const asSent: ItemChars = (item) => JSON.stringify(item).length;

// Made once: keyPart measures a long key once per character it drops.
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export interface Page<T> {
  items: T[];
  page: { nextCursor?: string };
}

/** Scope string for a listing: the tool name and its filters in canonical order. */
export function scopeOf(tool: string, filters: Record<string, unknown>): string {
  const canonical = Object.keys(filters).sort()
    .filter((key) => filters[key] !== undefined)
    .map((key) => `${key}=${JSON.stringify(filters[key])}`)
    .join("&");
  return `${tool}?${fnv1a(canonical)}`;
}

/**
 * The most JSON characters of items one page carries, whatever `limit` says. Gemini CLI cuts
 * a result over 40,000 characters (it keeps the head and tail) and Claude Code files one over
 * 50,000 away from the model, so a page stops early and `nextCursor` continues. Measured on
 * the form the model is shown (compact unless `detail: "full"`), so a compact page holds as
 * many records as fit, not as many as would fit in full.
 */
export const PAGE_CHARS = 30_000;

/**
 * A page's items with a lone record larger than the page cut to fit it: its longest strings
 * cut, each with a marker naming its whole length and how to read the record whole (then, only
 * if that is not enough, its long lists and maps shortened, said in its `truncated` field).
 * Only a lone record can be that large (`fittingCount` ends a page before one that does not fit).
 */
export function fitPageItems<T>(
  items: readonly T[],
  itemChars: ItemChars = asSent,
  readWhole: (item: T) => string,
): T[] {
  // Only a record that came alone can be larger than the page: others are not measured twice.
  if (items.length !== 1) return [...items];
  return items.map((item) => {
    if (itemChars(item) <= PAGE_CHARS) return item;
    const how = `; read the whole record with ${readWhole(item)}`;
    return withTruncationNote(fitValue(item, PAGE_CHARS - NOTE_ROOM, how, itemChars), how);
  });
}

/** How many of `items`, in order, fit in one page (at least one, so paging always advances). */
export function fittingCount(
  items: readonly unknown[],
  itemChars: ItemChars = asSent,
  budget = PAGE_CHARS,
): number {
  let used = 0;
  for (let i = 0; i < items.length; i++) {
    used += itemChars(items[i]) + 1;
    if (used > budget) return Math.max(1, i);
  }
  return items.length;
}

export function paginate<T>(
  items: readonly T[],
  keyOf: (item: T) => SortKey,
  req: PageRequest<T>,
): Page<T> {
  const sorted = items.map((item) => ({ item, key: boundedKey(keyOf(item)) }))
    .sort((a, b) => compareKeys(a.key, b.key));
  const after = req.afterCursor === undefined
    ? undefined
    : decodeCursor(req.afterCursor, req.scope);
  const start = after === undefined
    ? 0
    : sorted.findIndex((entry) => compareKeys(entry.key, after) > 0);
  const from = start === -1 ? sorted.length : start;
  const window = sorted.slice(from, from + req.limit);
  const slice = window.slice(0, fittingCount(window.map((entry) => entry.item), req.itemChars));
  const more = from + slice.length < sorted.length;
  return {
    items: fitPageItems(slice.map((entry) => entry.item), req.itemChars, req.readWhole),
    page: more
      ? { nextCursor: encodeCursor({ v: 1, s: req.scope, k: slice[slice.length - 1].key }) }
      : {},
  };
}

function compareKeys(a: SortKey, b: SortKey): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (typeof x === "number" && typeof y === "number") return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

/**
 * Longest sort-key string a cursor carries, in UTF-8 bytes of its JSON, so a cursor stays
 * within INPUT_BOUNDS.cursor however long the names and paths it sorts by. Items sort by the
 * bounded key too, and every key ends in something unique (an id, a port), so the order stays
 * total and a page after a cursor starts exactly where the last one stopped.
 */
const KEY_PART_BYTES = 100;

function boundedKey(key: SortKey): SortKey {
  return key.map((part) => typeof part === "string" ? keyPart(part) : part);
}

/** Printable ASCII that JSON writes as it is: one byte a character. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function keyPart(text: string): string {
  if (text.length + 2 <= KEY_PART_BYTES && PLAIN.test(text)) return text;
  const bytes = (t: string) => utf8.encode(JSON.stringify(t)).length;
  let end = Math.min(text.length, KEY_PART_BYTES);
  while (end > 0 && bytes(text.slice(0, end)) > KEY_PART_BYTES) end--;
  return text.slice(0, end);
}

function isSortKey(value: unknown): value is SortKey {
  return Array.isArray(value) &&
    value.every((part) => typeof part === "string" || typeof part === "number");
}

function encodeCursor(body: CursorBody): string {
  const bytes = utf8.encode(JSON.stringify(body));
  const cursor = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
  if (cursor.length > INPUT_BOUNDS.cursor.max) {
    throw new Error(`a ${cursor.length}-character cursor for ${body.s}: sort keys grew`);
  }
  return cursor;
}

function decodeCursor(cursor: string, scope: string): SortKey {
  const { k } = openCursor(cursor, scope);
  if (!isSortKey(k)) throw foreignCursor();
  return k;
}

/** A cursor's body once it is known to be ours and issued for `scope`. */
function openCursor(cursor: string, scope: string): Record<string, unknown> {
  let body: unknown;
  try {
    const binary = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    body = JSON.parse(fromUtf8.decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
  } catch {
    throw foreignCursor();
  }
  if (!isObject(body) || body.v !== 1 || typeof body.s !== "string") throw foreignCursor();
  if (body.s !== scope) throw scopeMismatch();
  return body;
}

/**
 * For collections the daemon pages itself: its cursor carries no filters, so the bridge
 * prefixes it with a fingerprint of the scope and refuses it under other filters, like its
 * own cursors. The daemon's cursor is already URL-safe text; encoding it again would make
 * every page a third longer for nothing.
 */
export function bindCursor(scope: string, daemonCursor: string): string {
  const bound = `${BOUND}${fnv1a(scope)}.${daemonCursor}`;
  if (bound.length > INPUT_BOUNDS.cursor.max) {
    // The real daemon's cursors are about 120 characters; one this long could not come back.
    throw invalidResponse(
      `a page cursor of ${daemonCursor.length} characters (at most ${
        INPUT_BOUNDS.cursor.max - bound.length + daemonCursor.length
      } can be passed on)`,
      { cursorLength: daemonCursor.length },
    );
  }
  return bound;
}

const BOUND = "b1.";
const BOUND_SHAPE = /^b1\.([0-9a-f]{8})\.(.+)$/s;

/** The daemon's cursor inside a bound one; `portreeve_invalid_input` if it is not for `scope`. */
export function unbindCursor(cursor: string, scope: string): string {
  const match = BOUND_SHAPE.exec(cursor);
  if (!match) throw foreignCursor();
  if (match[1] !== fnv1a(scope)) throw scopeMismatch();
  return match[2];
}

/** A cursor of this bridge's, issued for another listing or other filters. */
function scopeMismatch() {
  return invalidInput("afterCursor comes from another listing or other filters.", {
    field: "afterCursor",
    reason: "cursor_scope_mismatch",
  });
}

/** A cursor this bridge did not issue: nothing to continue from. */
function foreignCursor() {
  return invalidInput("afterCursor is not a cursor this bridge issued.", {
    field: "afterCursor",
    reason: "foreign_cursor",
  });
}

/** 32-bit FNV-1a, hex: enough to tell listings apart, not a security measure. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/** One summary line for a page: count, the first few items, and whether more remain. */
export function pageSummary<T>(
  noun: string,
  items: readonly T[],
  page: { nextCursor?: string },
  describe: (item: T) => string,
  shown = 6,
): string {
  if (items.length === 0) return `No ${noun}s match.`;
  const listed = items.slice(0, shown).map(describe).join(", ");
  const rest = items.length > shown ? ", …" : "";
  return `${items.length} ${noun}(s): ${listed}${rest}${
    page.nextCursor ? "; more with afterCursor." : "."
  }`;
}
