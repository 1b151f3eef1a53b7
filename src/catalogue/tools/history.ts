/** History: the daemon's audit trail, paged by the daemon itself (newest first). */
import { z } from "zod";
import { defineTool } from "../define.ts";
import { historyEvent, page, pageInput, timestamp } from "../shapes.ts";
import { read } from "../daemon_calls.ts";
import { pageSummary } from "../pagination.ts";

type HistoryPage = { items: z.output<typeof historyEvent>[]; page: { nextCursor: string | null } };

export const historyList = defineTool({
  name: "portreeve_history_list",
  title: "List history",
  kind: "read",
  description:
    "Page the daemon's event history, newest first. Filters match exactly; `since` is inclusive.",
  input: z.strictObject({
    ...pageInput,
    eventType: z.string().optional(),
    entityType: z.string().optional(),
    entityId: z.string().optional(),
    since: timestamp().optional(),
  }),
  output: page(historyEvent),
  async call(ctx, input) {
    const result = await read(ctx, "/v1/history", input) as HistoryPage;
    const next = result.page?.nextCursor;
    return { items: result.items, page: next ? { nextCursor: next } : {} };
  },
  summary: ({ items, page }) =>
    pageSummary("event", items, page, (e) => `${e.eventType} at ${e.occurredAt}`, 3),
});
