/**
 * Tools that are one daemon read: the route and its reply schema are declared, and the call
 * is derived. The reply schema is the tool's documented output (or, for a page, its item), so
 * the daemon's answer is checked where it arrives and returned as the tool's data.
 */
import type { z } from "zod";
import { type AnyTool, defineTool, type ToolDefinition } from "./define.ts";
import { type Query, read, readByPost, readPage } from "./daemon_calls.ts";
import { type Params, type Route, segmentsOf } from "./routes.ts";
import { page } from "./shapes.ts";
import type { SortKey } from "../results/pagination.ts";

type ReadSpec<In extends z.ZodObject, Out extends z.ZodType> =
  & Omit<ToolDefinition<In, Out>, "kind" | "call" | "routes">
  & {
    /** The one route read; its reply is the tool's data. */
    route: Route<Out>;
    /** The route's `{name}` segments (default: the input fields of those names). */
    params?(input: z.output<In>): Params;
    /** The GET's query or the POST's body (default: nothing). */
    send?(input: z.output<In>): Record<string, unknown>;
  };

/** A tool that reads one record (GET, or a POST that only reads) and returns it. */
export function readTool<In extends z.ZodObject, Out extends z.ZodType>(
  spec: ReadSpec<In, Out>,
): ToolDefinition<In, Out> {
  const { route, params, send, ...rest } = spec;
  const paramsOf = params ?? ((input: z.output<In>): Params => segmentsOf(input));
  return defineTool({
    ...rest,
    kind: "read",
    routes: [route],
    call: (ctx, input) =>
      route.method === "GET"
        ? read(ctx, route, paramsOf(input), queryOf(send?.(input) ?? {}))
        : readByPost(ctx, route, paramsOf(input), send?.(input) ?? {}),
  });
}

type PageQuery = { limit: number; afterCursor?: string } & Query;

type PagedSpec<In extends z.ZodObject, Item extends z.ZodType> =
  & Omit<ToolDefinition<In, ReturnType<typeof page<Item>>>, "kind" | "call" | "routes" | "output">
  & {
    item: Item;
    /** The collection's GET; the daemon answers it whole, filtered by the input's filters. */
    route: Route<z.ZodArray<Item>>;
    /** The sort key pages are cut by. */
    key(item: z.output<Item>): SortKey;
    /** What page cursors are bound to, with the filters. */
    listing: string;
    /** The tool (and argument) that reads one record whole, e.g. `portreeve_claim_get (id)`. */
    readWhole: string;
  };

/** A tool that pages a collection the daemon sends whole (see `readPage`). */
export function pagedReadTool<In extends z.ZodObject<z.ZodRawShape>, Item extends z.ZodType>(
  spec: PagedSpec<In, Item>,
): AnyTool {
  const { item, route, key, listing, readWhole, ...rest } = spec;
  return defineTool({
    ...rest,
    kind: "read",
    output: page(item),
    routes: [route],
    call: (ctx, input) => readPage(ctx, route, listing, pageQuery(input), key, readWhole),
  });
}

/** The input's page request and filters (the input schema gave `limit` its default). */
export function pageQuery(input: Record<string, unknown>): PageQuery {
  const { limit, afterCursor, ...rest } = input;
  if (typeof limit !== "number") throw new Error("a paged tool's input has no limit");
  return {
    ...queryOf(rest),
    limit,
    afterCursor: typeof afterCursor === "string" ? afterCursor : undefined,
  };
}

/** The fields a query string can carry. */
function queryOf(fields: Record<string, unknown>): Query {
  const out: Query = {};
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      out[key] = value;
    }
  }
  return out;
}
