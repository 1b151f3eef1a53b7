// GET /v1/history: newest-first pages with the daemon's opaque cursor codec.
import { z } from "zod";
import type { Ctx } from "../core.ts";
import { fail, parseWith } from "../errors.ts";
import { get, type Route } from "../router.ts";
import { tsSchema } from "../schemas.ts";
import type { HistoryEvent } from "../state.ts";
import { base64url, clone, compareStrings, fromBase64url } from "../util.ts";

const cursorSchema = z.strictObject({
  version: z.literal(1),
  sortKey: z.string().min(1),
  id: z.string().min(1),
});

function encodeCursor(event: HistoryEvent): string {
  const json = JSON.stringify({ version: 1, sortKey: event.occurredAt, id: event.id });
  return base64url(new TextEncoder().encode(json));
}

function decodeCursor(text: string): { sortKey: string; id: string } {
  const invalid = () =>
    fail.invalid("The continuation cursor is invalid.", { field: "afterCursor" });
  const bytes = fromBase64url(text);
  if (!bytes || text.length === 0) throw invalid();
  try {
    const parsed = cursorSchema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
    if (!parsed.success) throw invalid();
    return parsed.data;
  } catch {
    throw invalid();
  }
}

const historyQuery = z.object({
  limit: z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(1).max(200))
    .optional(),
  afterCursor: z.string().optional(),
  eventType: z.string().optional(),
  entityType: z.string().optional(),
  entityId: z.string().optional(),
  since: tsSchema.optional(),
});

/** Newest first by (occurredAt, id), both descending. */
function newestFirst(a: HistoryEvent, b: HistoryEvent): number {
  return compareStrings(b.occurredAt, a.occurredAt) || compareStrings(b.id, a.id);
}

function history(ctx: Ctx): unknown {
  const q = parseWith(historyQuery, Object.fromEntries(ctx.query));
  const limit = q.limit ?? 50;
  const after = q.afterCursor !== undefined ? decodeCursor(q.afterCursor) : null;
  const matching = ctx.state.history.filter((e) =>
    (q.eventType === undefined || e.eventType === q.eventType) &&
    (q.entityType === undefined || e.entityType === q.entityType) &&
    (q.entityId === undefined || e.entityId === q.entityId) &&
    (q.since === undefined || e.occurredAt >= q.since) &&
    (after === null || e.occurredAt < after.sortKey ||
      (e.occurredAt === after.sortKey && e.id < after.id))
  ).sort(newestFirst);
  const items = matching.slice(0, limit);
  const more = matching.length > limit;
  return {
    items: clone(items),
    page: { nextCursor: more ? encodeCursor(items[items.length - 1]) : null },
  };
}

export const historyRoutes: Route[] = [get("/v1/history", history)];
