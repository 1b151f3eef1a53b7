/** History: the daemon's audit trail, paged by the daemon itself (newest first). */
import { INPUT_BOUNDS } from "../../shared/input_bounds.ts";
import { z } from "zod";
import { defineTool } from "../define.ts";
import { bounded, page, pageInput, timeInput } from "../shapes.ts";
import { historyEvent } from "../records.ts";
import { read } from "../daemon_calls.ts";
import { get } from "../routes.ts";
import {
  bindCursor,
  fitPageItems,
  fittingCount,
  pageInfo,
  scopeOf,
  unbindCursor,
} from "../../results/pagination.ts";

// The daemon pages history itself, with a cursor of its own.
const historyRoute = get(
  "/v1/history",
  z.looseObject({
    items: z.array(historyEvent),
    page: z.looseObject({ nextCursor: z.string().nullable().optional() }).optional(),
  }),
);

/** The get tool of each entity type history records, by the field holding the event's id. */
const ENTITY_GETS: Record<string, string> = {
  claim: "portreeve_claim_get (id)",
  stack: "portreeve_stack_get (id)",
  "stack-generation": "portreeve_generation_get (id)",
  "stack-activation": "portreeve_activation_get (id)",
  "launcher-operation": "portreeve_launcher_operation_get (operationId)",
};

/** Events whose payload restates their entity's record (or the parameters it was made with). */
function restatesEntity(eventType: unknown): boolean {
  return typeof eventType === "string" &&
    (eventType.startsWith("claim.") || eventType.startsWith("launcher.operation."));
}

/** Where more of a cut event can be read: its entity's get tool, given its entityId. */
function readEventWhole(event: { entityType: string }): string {
  const get = Object.hasOwn(ENTITY_GETS, event.entityType) ? ENTITY_GETS[event.entityType] : "";
  return get
    ? `${get} with its entityId (the event's payload is as it was then)`
    : "none: history keeps it, but no tool shows one event in more detail";
}

export const historyList = defineTool({
  name: "portreeve_history_list",
  title: "List history",
  detail: true,
  kind: "read",
  description: "Daemon events, newest first; since: ISO 8601.",
  input: z.strictObject({
    ...pageInput,
    eventType: bounded(INPUT_BOUNDS.eventType.max).optional(),
    entityType: bounded(INPUT_BOUNDS.entityType.max).optional(),
    entityId: bounded(INPUT_BOUNDS.entityId.max).optional(),
    since: timeInput().optional(),
  }),
  output: page(historyEvent),
  // An event is its type, entity and time: its eventType names the kind of entity (its
  // entityType says it again); a payload that restates the entity's record (a claim, a
  // launcher operation) is what that entity's get tool shows now.
  view: {
    rare: ["items[].id", "items[].entityType", {
      path: "items[].payload",
      when: (event) => restatesEntity(event.eventType),
      which: "of claim.* and launcher.operation.* events",
    }],
  },
  routes: [historyRoute],
  async call(ctx, input) {
    // The daemon's cursor ignores filters; binding it to them refuses a cursor reused elsewhere.
    const { limit: _limit, afterCursor, ...filters } = input;
    const scope = scopeOf("portreeve_history_list", filters);
    const query = afterCursor === undefined
      ? input
      : { ...input, afterCursor: unbindCursor(afterCursor, scope) };
    let result = await read(ctx, historyRoute, {}, query);
    // The daemon's cursors are opaque, so a page too large to reach the model whole is asked
    // for again with the number of events that fit (the same first events, a cursor after them).
    const fits = fittingCount(result.items, ctx.pageFit);
    if (fits < result.items.length) {
      result = await read(ctx, historyRoute, {}, { ...query, limit: fits });
    }
    const next = result.page?.nextCursor;
    const items = fitPageItems(result.items, readEventWhole, ctx.pageFit);
    return { items, page: pageInfo(items, next ? bindCursor(scope, next) : undefined) };
  },
});
