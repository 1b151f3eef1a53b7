/** Daemon calls made on behalf of a tool: its signal, its capabilities, lowercase ids. */
import type { ToolContext } from "./context.ts";
import { type Page, paginate, scopeOf, type SortKey } from "./pagination.ts";
import { withOutcomeCheck } from "./outcome_checks.ts";

type Query = Record<string, string | number | boolean | undefined>;

export function read(ctx: ToolContext, path: string, query: Query = {}): Promise<unknown> {
  return ctx.daemon.get(path, query, { signal: ctx.signal, capabilities: ctx.capabilities });
}

/** A POST that only reads (status, resolve, snapshot, validate): safe to re-send once. */
export function readByPost(
  ctx: ToolContext,
  path: string,
  body: Record<string, unknown> = {},
): Promise<unknown> {
  return ctx.daemon.post(path, body, {
    signal: ctx.signal,
    capabilities: ctx.capabilities,
    safe: true,
  });
}

/**
 * A POST that changes state. Re-sent only when the daemon provably never had it (a write on a
 * connection the daemon had closed); an answer-less failure is reported as an unknown outcome,
 * naming the read that shows whether it took effect.
 */
export function mutate(
  ctx: ToolContext,
  path: string,
  body: Record<string, unknown> = {},
  options: { timeoutMs?: number; capabilities?: readonly string[] } = {},
): Promise<unknown> {
  return ctx.daemon.post(path, body, {
    signal: ctx.signal,
    capabilities: options.capabilities ?? ctx.capabilities,
    timeoutMs: options.timeoutMs,
  }).catch((error) => {
    throw withOutcomeCheck(error, path);
  });
}

/** Epoch milliseconds of a daemon timestamp. */
export function epoch(timestamp: string): number {
  return Date.parse(timestamp);
}

/** ISO form of epoch milliseconds, as the daemon writes them. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A path segment for an id: the daemon routes only lowercase UUIDs. */
export function id(value: string): string {
  return encodeURIComponent(value.toLowerCase());
}

/**
 * A bridge-side page of a daemon collection that arrives whole: the filters go to the
 * daemon, the page is cut here (see pagination.ts), bound to `listing` and those filters.
 */
export async function readPage<T>(
  ctx: ToolContext,
  path: string,
  listing: string,
  input: { limit: number; afterCursor?: string } & Query,
  key: (item: T) => SortKey,
): Promise<Page<T>> {
  const { limit, afterCursor, ...filters } = input;
  const all = await read(ctx, path, filters) as T[];
  return paginate(all, key, { scope: scopeOf(listing, filters), limit, afterCursor });
}
