// Generations: prepare (port planning for every published endpoint), list and get.
import { z } from "zod";
import { blockerFor, candidatePorts } from "../allocation.ts";
import type { Ctx } from "../core.ts";
import { fail, parseWith } from "../errors.ts";
import { sweepLeases } from "../lifecycle.ts";
import { get, post, type Route } from "../router.ts";
import { uuidSchema } from "../schemas.ts";
import { publishedEndpoints } from "../stackdef.ts";
import type { Generation, GenerationEndpoint, Stack } from "../state.ts";
import { compareStrings, uuid } from "../util.ts";
import { generationView } from "../views.ts";
import { stackOr404 } from "./stacks.ts";

export function invalidate(ctx: Ctx, g: Generation, reason: string): void {
  if (g.state === "stale") return;
  g.state = "stale";
  g.invalidatedAt = ctx.at;
  ctx.event("stack.generation.invalidated", "stack-generation", g.id, {
    stackId: g.stackId,
    revision: g.revision,
    reason,
  });
}

/** A generation stays usable while its claims keep their ports and no stranger listens. */
function stillValid(ctx: Ctx, g: Generation): boolean {
  return g.endpoints.every((e) => {
    const claim = ctx.state.claims.get(e.claimId);
    if (!claim || claim.assignedPort !== e.port) return false;
    return blockerFor(ctx, e.port, claim.id, { ownListenerOk: true }) !== "live_listener";
  });
}

function plan(ctx: Ctx, stack: Stack): GenerationEndpoint[] {
  const chosen = new Set<number>();
  const out: GenerationEndpoint[] = [];
  for (const e of publishedEndpoints(stack.definition)) {
    const claim = ctx.state.findClaim(stack.project, stack.stackRoot, e.component, e.endpoint);
    if (!claim) {
      throw fail.internal(`Endpoint ${e.component}.${e.endpoint} has no linked claim.`, {
        stackId: stack.id,
        component: e.component,
        endpoint: e.endpoint,
      });
    }
    const where = { stackId: stack.id, component: e.component, endpoint: e.endpoint };
    let port: number | null = null;
    if (e.exactPort !== null) {
      const blocker = blockerFor(ctx, e.exactPort, claim.id, { ownListenerOk: true });
      if (blocker) {
        throw fail.conflict(`Exact port ${e.exactPort} is not available.`, {
          ...where,
          port: e.exactPort,
          reason: blocker === "live_listener" ? "listener_present" : blocker,
        });
      }
      port = e.exactPort;
    } else if (!ctx.state.livePendingLease(claim.id, ctx.lapseAt)) {
      const first = [claim.assignedPort, e.preferredPort].filter((p): p is number => p !== null);
      for (const candidate of candidatePorts(ctx, first)) {
        if (chosen.has(candidate)) continue;
        if (blockerFor(ctx, candidate, claim.id, { ownListenerOk: true }) === null) {
          port = candidate;
          break;
        }
      }
    }
    if (port === null) {
      throw fail.conflict(`No port is available for ${e.component}.${e.endpoint}.`, where);
    }
    chosen.add(port);
    out.push({
      claimId: claim.id,
      component: e.component,
      endpoint: e.endpoint,
      transport: "tcp",
      host: "127.0.0.1",
      port,
      required: e.required,
    });
  }
  return out;
}

function prepare(ctx: Ctx): unknown {
  const stack = stackOr404(ctx, ctx.params.stackId);
  sweepLeases(ctx);
  const valid = [...ctx.state.generations.values()].filter((g) =>
    g.stackId === stack.id && g.state === "valid"
  );
  const current = valid.filter((g) => g.revision === stack.currentRevision).pop();
  if (current && stillValid(ctx, current)) {
    return { reused: true, generation: generationView(current) };
  }
  const endpoints = plan(ctx, stack);
  for (const g of valid) {
    invalidate(ctx, g, g.revision === stack.currentRevision ? "ports-changed" : "revision-changed");
  }
  for (const e of endpoints) {
    const claim = ctx.state.claims.get(e.claimId)!;
    if (claim.assignedPort !== e.port) {
      claim.assignedPort = e.port;
      claim.assignmentExpiresAt = null;
      claim.updatedAt = ctx.at;
    }
  }
  const generation: Generation = {
    id: uuid(),
    stackId: stack.id,
    revision: stack.currentRevision,
    state: "valid",
    endpoints,
    createdAt: ctx.at,
    invalidatedAt: null,
  };
  ctx.state.generations.set(generation.id, generation);
  ctx.event("stack.generation.prepared", "stack-generation", generation.id, {
    stackId: stack.id,
    revision: generation.revision,
    endpointCount: endpoints.length,
  });
  return { reused: false, generation: generationView(generation) };
}

const listQuery = z.object({
  stackId: uuidSchema.optional(),
  state: z.enum(["valid", "stale"]).optional(),
});

function list(ctx: Ctx): unknown {
  const q = parseWith(listQuery, Object.fromEntries(ctx.query));
  return [...ctx.state.generations.values()].filter((g) =>
    (q.stackId === undefined || g.stackId === q.stackId) &&
    (q.state === undefined || g.state === q.state)
  ).sort((a, b) => compareStrings(a.id, b.id)).map(generationView);
}

export function generationOr404(ctx: Ctx, id: string): Generation {
  const g = ctx.state.generations.get(id);
  if (!g) throw fail.notFound(`Generation ${id} was not found.`);
  return g;
}

export const generationRoutes: Route[] = [
  post("/v1/stacks/:stackId/prepare", prepare),
  get("/v1/stack-generations", list),
  get(
    "/v1/stack-generations/:generationId",
    (ctx) => generationView(generationOr404(ctx, ctx.params.generationId)),
  ),
];
