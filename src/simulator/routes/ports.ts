// Port inventory, single-port inspection, reclaim and unsafe eviction.
import { z } from "zod";
import type { Ctx } from "../core.ts";
import { parseWith } from "../errors.ts";
import { inventoryEntry, knownPorts } from "../inventory.ts";
import { reclaim } from "../reclamation.ts";
import { get, post, type Route } from "../router.ts";
import { policySchema, queryBoolean, queryPort } from "../schemas.ts";

const CLASSIFICATIONS = [
  "available",
  "verified",
  "idle",
  "pending",
  "unclaimed",
  "conflicting",
  "mixed",
  "docker-managed",
] as const;

const portsQuery = z.object({
  classification: z.enum(CLASSIFICATIONS).optional(),
  claimed: queryBoolean.optional(),
  listening: queryBoolean.optional(),
  project: z.string().optional(),
  workspace: z.string().optional(),
  service: z.string().optional(),
  component: z.string().optional(),
  endpoint: z.string().optional(),
  port: queryPort.optional(),
});

function listPorts(ctx: Ctx): unknown {
  const q = parseWith(portsQuery, Object.fromEntries(ctx.query));
  const ports = q.port !== undefined
    ? knownPorts(ctx).filter((p) => p === q.port)
    : knownPorts(ctx);
  return ports.map((port) => inventoryEntry(ctx, port)).filter((entry) => {
    const claim = entry.claim as { identity: Record<string, string> } | null;
    const id = claim?.identity;
    const listeners = entry.listeners as unknown[];
    return (q.classification === undefined || entry.classification === q.classification) &&
      (q.claimed === undefined || (claim !== null) === q.claimed) &&
      (q.listening === undefined || (listeners.length > 0) === q.listening) &&
      (q.project === undefined || id?.project === q.project) &&
      (q.workspace === undefined || id?.workspaceRoot === q.workspace) &&
      (q.service === undefined || id?.component === q.service) &&
      (q.component === undefined || id?.component === q.component) &&
      (q.endpoint === undefined || id?.endpoint === q.endpoint);
  });
}

const reclaimSchema = z.object({ policy: policySchema, dryRun: z.boolean().default(false) });

async function reclaimRoute(ctx: Ctx): Promise<unknown> {
  const body = parseWith(reclaimSchema, ctx.body);
  return await reclaim(ctx, Number(ctx.params.port), body.policy, body.dryRun, "reclaim");
}

const evictSchema = z.object({
  unsafeAnyOwner: z.literal(true),
  policy: z.enum(["graceful", "force-after-grace"]).default("graceful"),
  dryRun: z.boolean().default(false),
});

async function evictRoute(ctx: Ctx): Promise<unknown> {
  const body = parseWith(evictSchema, ctx.body);
  return await reclaim(ctx, Number(ctx.params.port), body.policy, body.dryRun, "unsafe-eviction");
}

export const portRoutes: Route[] = [
  get("/v1/ports", listPorts),
  get("/v1/ports/:port", (ctx) => inventoryEntry(ctx, Number(ctx.params.port))),
  post("/v1/ports/:port/reclaim", reclaimRoute, reclaimSchema),
  post("/v1/ports/:port/unsafe-evict", evictRoute, evictSchema),
];
