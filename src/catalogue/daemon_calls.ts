/**
 * Daemon calls made on behalf of a tool, by declared route: its signal, its capabilities,
 * lowercase ids, and the route's reply schema, which the client checks and which types the
 * answer.
 */
import type { z } from "zod";
import type { ToolContext } from "./context.ts";
import { type ItemId, type Page, paginate, scopeOf } from "../results/pagination.ts";
import { withOutcomeCheck } from "./outcome_checks.ts";
import type { Params, Query, Route } from "./routes.ts";
import type { ApprovalProof } from "../daemon/gate.ts";
import { waitEnded } from "../daemon/errors.ts";
import { deadlineOf } from "../shared/signals.ts";

/** A GET, with the tool's signal and capabilities. */
export function read<Reply extends z.ZodType>(
  ctx: ToolContext,
  route: Route<Reply>,
  params: Params = {},
  query: Query = {},
): Promise<z.output<Reply>> {
  return ctx.daemon.request(route, { ...asTool(ctx), params, query });
}

/** A POST that only reads (status, resolve, snapshot, validate): safe to re-send once. */
export function readByPost<Reply extends z.ZodType>(
  ctx: ToolContext,
  route: Route<Reply>,
  params: Params = {},
  body: Record<string, unknown> = {},
): Promise<z.output<Reply>> {
  return ctx.daemon.request(route, { ...asTool(ctx), params, body, safe: true });
}

/** What every request made for a tool carries: its signal and its capabilities. */
function asTool(ctx: ToolContext): { signal: AbortSignal; capabilities: readonly string[] } {
  return { signal: ctx.signal, capabilities: ctx.capabilities };
}

/**
 * A POST that changes state. Re-sent only when the daemon provably never had it (a write on a
 * connection the daemon had closed); an answer-less failure is reported as an unknown outcome,
 * naming the read that shows whether it took effect. Once sent it runs to its answer even when
 * the host cancels the call: what that answer creates is given back, and `whenLate` is told of
 * it (src/daemon/late.ts). A consequential request needs the approval module's proof for
 * exactly this request (the client refuses it otherwise).
 */
export function mutate<Reply extends z.ZodType>(
  ctx: ToolContext,
  route: Route<Reply>,
  params: Params = {},
  body: Record<string, unknown> = {},
  options: {
    capabilities?: readonly string[];
    approval?: ApprovalProof;
    whenLate?: (reply: z.output<Reply>) => void;
  } = {},
): Promise<z.output<Reply>> {
  return ctx.daemon.request(route, {
    params,
    body,
    signal: ctx.signal,
    capabilities: options.capabilities ?? ctx.capabilities,
    approval: options.approval,
    whenLate: options.whenLate as ((reply: unknown) => void) | undefined,
  }).catch((error) => {
    throw withOutcomeCheck(error, route);
  });
}

/**
 * Keeps what a change's answer created only while its caller still waits. When the host
 * cancelled the call (or its bound ran out) as the answer arrived, or while the bridge took it in
 * (custody renewing a lease close to its expiry first), nobody will read the result: the
 * credential is dropped (`drop`), what the answer created is given back as a late answer's is
 * (the route's `giveBack`), and the call ends as one that gave up waiting.
 */
export function stillWanted<Reply extends z.ZodType>(
  ctx: ToolContext,
  route: Route<Reply>,
  answer: z.output<Reply>,
  drop: () => void,
): void {
  if (!ctx.signal.aborted) return;
  drop();
  ctx.daemon.giveBack(route, answer);
  const deadline = deadlineOf(ctx.signal);
  throw waitEnded(
    ctx.bridge.socketPath,
    deadline ? { kind: "timeout", afterMs: deadline.ms } : { kind: "aborted" },
    { givesBack: route.giveBack?.what },
  );
}

/** A page request and the filters sent with it. */
type PageQuery = { limit: number; afterCursor?: string } & Query;

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
export function queryOf(fields: Record<string, unknown>): Query {
  const out: Query = {};
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      out[key] = value;
    }
  }
  return out;
}

/**
 * A bridge-side page of a daemon collection that arrives whole: the filters go to the
 * daemon, the page is cut here in the daemon's order (see pagination.ts), bound to `listing`
 * (the tool's name) and those filters.
 */
export async function readPage<Item extends z.ZodType>(
  ctx: ToolContext,
  route: Route<z.ZodArray<Item>>,
  listing: string,
  input: PageQuery,
  idOf: (item: z.output<Item>) => ItemId,
  /** The tool that reads one record whole, named by a record cut to fit a page. */
  readWhole: string,
): Promise<Page<z.output<Item>>> {
  const { limit, afterCursor, ...filters } = input;
  const all = await read(ctx, route, {}, filters);
  const scope = scopeOf(listing, filters);
  return paginate(all, idOf, {
    scope,
    limit,
    afterCursor,
    fit: ctx.pageFit,
    readWhole: () => readWhole,
  });
}
