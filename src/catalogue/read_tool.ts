/**
 * Tools that are one daemon read: the route and its reply schema are declared, and the call
 * is derived. The reply schema is the tool's documented output (or, for a page, its item), so
 * the daemon's answer is checked where it arrives and returned as the tool's data.
 */
import type { z } from "zod";
import { defineTool, type ToolDefinition } from "./define.ts";
import { pageQuery, queryOf, read, readByPost, readPage } from "./daemon_calls.ts";
import { type Params, type Route, segmentsFromInput } from "./routes.ts";
import { page } from "./shapes.ts";
import type { ItemId } from "../results/pagination.ts";

type ReadSpec<In extends z.ZodObject, Out extends z.ZodType> =
  & Omit<ToolDefinition<In, Out>, "kind" | "call" | "routes" | "output">
  & {
    /** The one route read; its reply schema is the tool's output. */
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
  const paramsOf: (input: z.output<In>) => Params = params ??
    segmentsFromInput(spec.name, route, spec.input);
  return defineTool({
    ...rest,
    kind: "read",
    output: route.schema,
    routes: [route],
    call: (ctx, input) =>
      route.method === "GET"
        ? read(ctx, route, paramsOf(input), queryOf(send?.(input) ?? {}))
        : readByPost(ctx, route, paramsOf(input), send?.(input) ?? {}),
  });
}

type PagedSpec<In extends z.ZodObject, Item extends z.ZodType> =
  & Omit<ToolDefinition<In, ReturnType<typeof page<Item>>>, "kind" | "call" | "routes" | "output">
  & {
    item: Item;
    /** The collection's GET; the daemon answers it whole, filtered by the input's filters. */
    route: Route<z.ZodArray<Item>>;
    /** What identifies an item (pages keep the daemon's order; a cursor names its last item). */
    id(item: z.output<Item>): ItemId;
    /** The tool (and argument) that reads one record whole, e.g. `portreeve_claim_get (id)`. */
    readWhole: string;
  };

/**
 * A tool that pages a collection the daemon sends whole (see `readPage`); its cursors are
 * bound to the tool's name and filters.
 */
export function pagedReadTool<In extends z.ZodObject<z.ZodRawShape>, Item extends z.ZodType>(
  spec: PagedSpec<In, Item>,
): ToolDefinition<In, ReturnType<typeof page<Item>>> {
  const { item, route, id, readWhole, ...rest } = spec;
  return defineTool({
    ...rest,
    kind: "read",
    output: page(item),
    routes: [route],
    call: (ctx, input) => readPage(ctx, route, spec.name, pageQuery(input), id, readWhole),
  });
}
