/**
 * Bridge-side pages over a daemon collection that arrives whole, in the daemon's own order
 * (so the first page holds what the daemon lists first). A cursor carries the id of the last
 * item served, its position, and a fingerprint of the tool and its filters, so a cursor from
 * another listing (or the same listing with other filters) is refused instead of silently
 * returning an odd page. A page holds only what the host shows its model whole (see
 * `PageFit`) and says how many items it holds.
 */
import { invalidInput, invalidResponse } from "../shared/errors.ts";
import { isObject } from "../shared/json.ts";
import { fitValue, NOTE_ROOM, withTruncationNote } from "../shared/answer_bounds.ts";
import { INPUT_BOUNDS } from "../shared/input_bounds.ts";

/** What identifies one item of a collection (an id, a port). */
export type ItemId = string | number;

/** `i`: the position after the last item served; `k`: that item's id; `s`: the scope. */
type CursorBody = { v: 2; s: string; k: ItemId; i: number };

/** How much of a page reaches the model whole, and what each item costs of it. */
export interface PageFit {
  /** Bytes of JSON one item adds to the page, in the form the model is shown. */
  itemBytes: ItemBytes;
  /** Bytes of items a page may carry (the host's result limit less the envelope around them). */
  budget: number;
}

/** Bytes of JSON one page item takes in the form the model is shown. */
type ItemBytes = (item: unknown) => number;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** An item's JSON as it is, in bytes. */
export const asSent: ItemBytes = (item) => utf8.encode(JSON.stringify(item)).length;

/**
 * The smallest result a known host shows its model whole (Codex cuts a tool result over
 * about 12 KB, keeping its head and tail): what a page fits when nothing else is known.
 */
export const SMALLEST_RESULT_BYTES = 11_900;

/**
 * Room a page leaves for what surrounds its items: the envelope, the page object with its
 * cursor, and a custody warning (which any result may carry while a credential is at risk).
 */
export const PAGE_ROOM = 1_500;

/** The fit of a page when nothing is known of the host: the smallest limit, items as sent. */
export const DEFAULT_FIT: PageFit = {
  itemBytes: asSent,
  budget: SMALLEST_RESULT_BYTES - PAGE_ROOM,
};

interface PageRequest<T = unknown> {
  scope: string;
  limit: number;
  afterCursor?: string;
  fit?: PageFit;
  /** How to read one record whole (e.g. its get tool), said by a record cut to fit a page. */
  readWhole: (item: T) => string;
}

/** `itemCount`: how many items this page holds; `nextCursor` is left out on the last page. */
interface PageInfo {
  itemCount: number;
  nextCursor?: string;
}

export interface Page<T> {
  items: T[];
  page: PageInfo;
}

/** The page object of `items`, continued by `nextCursor` when given. */
export function pageInfo(items: readonly unknown[], nextCursor?: string): PageInfo {
  return nextCursor === undefined
    ? { itemCount: items.length }
    : { itemCount: items.length, nextCursor };
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
 * A page's items with a lone record larger than the page cut to fit it: its longest strings
 * cut, each with a marker naming its whole length and how to read the record whole (then, only
 * if that is not enough, its long lists and maps shortened, said in its `truncated` field).
 * Only a lone record can be that large (`fittingCount` ends a page before one that does not fit).
 */
export function fitPageItems<T>(
  items: readonly T[],
  readWhole: (item: T) => string,
  fit: PageFit = DEFAULT_FIT,
): T[] {
  // Only a record that came alone can be larger than the page: others are not measured twice.
  if (items.length !== 1) return [...items];
  return items.map((item) => {
    if (fit.itemBytes(item) <= fit.budget) return item;
    const how = `; read the whole record with ${readWhole(item)}`;
    return withTruncationNote(
      fitValue(item, fit.budget - NOTE_ROOM, how, fit.itemBytes),
      how,
    );
  });
}

/** How many of `items`, in order, fit in one page (at least one, so paging always advances). */
export function fittingCount(items: readonly unknown[], fit: PageFit = DEFAULT_FIT): number {
  let used = 0;
  for (let i = 0; i < items.length; i++) {
    used += fit.itemBytes(items[i]) + 1;
    if (used > fit.budget) return Math.max(1, i);
  }
  return items.length;
}

/** One page of `items` (the daemon's whole collection, in its order), after `afterCursor`. */
export function paginate<T>(
  items: readonly T[],
  idOf: (item: T) => ItemId,
  req: PageRequest<T>,
): Page<T> {
  const from = req.afterCursor === undefined
    ? 0
    : resumeAt(items, idOf, decodeCursor(req.afterCursor, req.scope));
  const window = items.slice(from, from + req.limit);
  const slice = window.slice(0, fittingCount(window, req.fit));
  const end = from + slice.length;
  const last = slice.at(-1);
  const next = end < items.length && last !== undefined
    ? encodeCursor({ v: 2, s: req.scope, k: boundedId(idOf(last)), i: end })
    : undefined;
  return { items: fitPageItems(slice, req.readWhole, req.fit), page: pageInfo(slice, next) };
}

/**
 * Where the page after `cursor` starts: after the last item served, found by its id (items
 * added or removed before it move it); if it is gone, where it was.
 */
function resumeAt<T>(
  items: readonly T[],
  idOf: (item: T) => ItemId,
  cursor: { k: ItemId; i: number },
): number {
  const at = items.findIndex((item) => boundedId(idOf(item)) === cursor.k);
  return at === -1 ? Math.min(Math.max(0, cursor.i - 1), items.length) : at + 1;
}

/**
 * Longest id a cursor carries, in UTF-8 bytes of its JSON, so a cursor stays within
 * INPUT_BOUNDS.cursor whatever the daemon's ids look like (its ids are UUIDs and ports).
 */
const ID_BYTES = 100;

function boundedId(id: ItemId): ItemId {
  if (typeof id === "number") return id;
  if (id.length + 2 <= ID_BYTES && PLAIN.test(id)) return id;
  const bytes = (t: string) => utf8.encode(JSON.stringify(t)).length;
  let end = Math.min(id.length, ID_BYTES);
  while (end > 0 && bytes(id.slice(0, end)) > ID_BYTES) end--;
  return id.slice(0, end);
}

/** Printable ASCII that JSON writes as it is: one byte a character. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function encodeCursor(body: CursorBody): string {
  const bytes = utf8.encode(JSON.stringify(body));
  const cursor = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
  if (cursor.length > INPUT_BOUNDS.cursor.max) {
    throw new Error(`a ${cursor.length}-character cursor for ${body.s}: sort keys grew`);
  }
  return cursor;
}

function decodeCursor(cursor: string, scope: string): { k: ItemId; i: number } {
  const { k, i } = openCursor(cursor, scope);
  const id = typeof k === "number" || typeof k === "string";
  if (!id || typeof i !== "number" || !Number.isSafeInteger(i) || i < 0) throw foreignCursor();
  return { k, i };
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
  if (!isObject(body) || body.v !== 2 || typeof body.s !== "string") throw foreignCursor();
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
