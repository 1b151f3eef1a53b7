// Stack definitions: list/get, apply, prune, status, the stack document and validation.
import { z } from "zod";
import { canonicalStackRoot, readDocument } from "../document.ts";
import type { Ctx } from "../core.ts";
import { fail, parseWith, SCHEMA_MESSAGE } from "../errors.ts";
import { createClaim, sweepLeases } from "../lifecycle.ts";
import { providersFor } from "../providers.ts";
import { get, post, type Route } from "../router.ts";
import {
  normalizeDefinition,
  publishedEndpoints,
  type StackDefinition,
  stackDefinitionSchema,
} from "../stackdef.ts";
import type { Activation, Claim, Generation, LauncherRecord, Stack } from "../state.ts";
import { compareStrings, uuid } from "../util.ts";
import { activationView, claimView, generationView, stackView } from "../views.ts";
import { pruneHandler, pruneSchema } from "./claims.ts";

export function stackOr404(ctx: Ctx, stackId: string): Stack {
  const stack = ctx.state.stacks.get(stackId);
  if (!stack) throw fail.notFound(`Stack ${stackId} was not found.`);
  return stack;
}

const LIVE = new Set(["starting", "confirmed", "degraded"]);

export function liveActivation(ctx: Ctx, stackRoot: string): Activation | undefined {
  for (const a of ctx.state.activations.values()) {
    const stack = ctx.state.stacks.get(a.stackId);
    if (stack?.stackRoot === stackRoot && LIVE.has(a.state)) return a;
  }
  return undefined;
}

function activeLauncherOps(ctx: Ctx, stackId: string): LauncherRecord[] {
  return [...ctx.state.launcher.values()].map((e) => e.record).filter((r) =>
    r.stackId === stackId && r.state === "active" && r.deadlineAt > ctx.lapseAt
  );
}

const within = (parent: string, child: string) =>
  child === parent || child.startsWith(parent.endsWith("/") ? parent : parent + "/");

/** Validates an apply without changing anything and reports what would happen. */
export function planApply(
  ctx: Ctx,
  root: string,
  definition: StackDefinition,
  revision: string,
): { existing: Stack | null; changed: boolean } {
  const existing =
    [...ctx.state.stacks.values()].find((s) =>
      s.project === definition.project && s.stackRoot === root
    ) ?? null;
  for (const other of ctx.state.stacks.values()) {
    if (other === existing) continue;
    if (within(other.stackRoot, root) || within(root, other.stackRoot)) {
      throw fail.conflict(`Stack root ${root} overlaps stack ${other.id}.`, {
        stackRoot: root,
        conflictingStackId: other.id,
        conflictingStackRoot: other.stackRoot,
        reason: "stack_root_overlap",
      });
    }
  }
  const changed = existing === null || existing.currentRevision !== revision;
  if (existing && changed) {
    const op = activeLauncherOps(ctx, existing.id)[0];
    if (op) {
      throw fail.conflict(`Stack ${existing.id} has an active launcher operation.`, {
        stackId: existing.id,
        operationId: op.id,
        reason: "launcher_operation_active",
      });
    }
    if (liveActivation(ctx, root)) {
      throw fail.conflict(`Stack ${existing.id} has a live activation.`, {
        stackId: existing.id,
        reason: "activation_live",
      });
    }
  }
  for (const e of publishedEndpoints(definition)) {
    const claim = ctx.state.findClaim(definition.project, root, e.component, e.endpoint);
    const detail = { component: e.component, endpoint: e.endpoint };
    if (claim && claim.mode !== "sticky") {
      throw fail.conflict(`Claim ${claim.id} is ephemeral and cannot back a stack endpoint.`, {
        ...detail,
        claimId: claim.id,
        reason: "claim_mode",
      });
    }
    if (e.exactPort !== null) {
      if (claim && claim.assignedPort !== null && claim.assignedPort !== e.exactPort) {
        throw fail.conflict(`Claim ${claim.id} holds port ${claim.assignedPort}.`, {
          ...detail,
          assignedPort: claim.assignedPort,
          exactPort: e.exactPort,
          reason: "exact_port_mismatch",
        });
      }
      const holder = ctx.state.claimAssignedTo(e.exactPort, ctx.lapseAt);
      if (holder && holder.id !== claim?.id) {
        throw fail.conflict(`Port ${e.exactPort} belongs to claim ${holder.id}.`, {
          ...detail,
          exactPort: e.exactPort,
          claimId: holder.id,
          reason: "port_assigned",
        });
      }
    }
  }
  return { existing, changed };
}

export function applyStack(
  ctx: Ctx,
  root: string,
  definition: StackDefinition,
  revision: string,
): { changed: boolean; stack: Record<string, unknown> } {
  const { existing, changed } = planApply(ctx, root, definition, revision);
  if (existing && !changed) return { changed: false, stack: stackView(existing) };
  let stack: Stack;
  if (existing) {
    const previousRevision = existing.currentRevision;
    existing.definition = definition;
    existing.currentRevision = revision;
    existing.updatedAt = ctx.at;
    existing.lastUsedAt = ctx.at;
    stack = existing;
    ctx.event("stack.definition.applied", "stack", stack.id, {
      project: stack.project,
      stackRoot: root,
      revision,
      previousRevision,
    });
  } else {
    stack = {
      id: uuid(),
      project: definition.project,
      stackRoot: root,
      currentRevision: revision,
      definition,
      createdAt: ctx.at,
      updatedAt: ctx.at,
      lastUsedAt: ctx.at,
    };
    ctx.state.stacks.set(stack.id, stack);
    ctx.event("stack.created", "stack", stack.id, {
      project: stack.project,
      stackRoot: root,
      revision,
    });
  }
  for (const e of publishedEndpoints(definition)) {
    const claim = ctx.state.findClaim(definition.project, root, e.component, e.endpoint);
    if (claim) {
      claim.preferredPort = e.preferredPort;
      claim.exactPort = e.exactPort;
      claim.updatedAt = ctx.at;
      continue;
    }
    createClaim(ctx, {
      project: definition.project,
      workspaceRoot: root,
      component: e.component,
      endpoint: e.endpoint,
      mode: "sticky",
      preferredPort: e.preferredPort,
      exactPort: e.exactPort,
    }, { source: "stack-definition" });
  }
  return { changed: true, stack: stackView(stack) };
}

const stacksQuery = z.object({ project: z.string().optional(), stackRoot: z.string().optional() });

async function listStacks(ctx: Ctx): Promise<unknown> {
  if (ctx.query.has("workspaceRoot")) {
    throw fail.invalid("Stacks are filtered by stackRoot, not workspaceRoot.", {
      reason: "unsupported_stack_filter",
      filter: "workspaceRoot",
    });
  }
  const q = parseWith(stacksQuery, Object.fromEntries(ctx.query));
  const root = q.stackRoot !== undefined ? await canonicalStackRoot(q.stackRoot, "reason") : null;
  return [...ctx.state.stacks.values()].filter((s) =>
    (q.project === undefined || s.project === q.project) && (root === null || s.stackRoot === root)
  ).sort((a, b) => compareStrings(a.project, b.project) || compareStrings(a.stackRoot, b.stackRoot))
    .map(stackView);
}

const applySchema = z.strictObject({
  client: z.unknown(),
  stackRoot: z.string().min(1),
  definition: stackDefinitionSchema,
});

async function apply(ctx: Ctx): Promise<unknown> {
  const body = parseWith(applySchema, ctx.body);
  const root = await canonicalStackRoot(body.stackRoot, "reason");
  const normalized = normalizeDefinition(body.definition);
  if (!normalized.ok) {
    throw fail.invalid(SCHEMA_MESSAGE, { issues: normalized.issues });
  }
  return applyStack(ctx, root, normalized.definition, normalized.revision);
}

function latest<T extends { createdAt: string }>(items: T[]): T | null {
  // Insertion order breaks ties between records created in the same millisecond.
  let best: T | null = null;
  for (const item of items) if (!best || item.createdAt >= best.createdAt) best = item;
  return best;
}

function status(ctx: Ctx): unknown {
  const stack = stackOr404(ctx, ctx.params.stackId);
  sweepLeases(ctx);
  const generation: Generation | null = latest(
    [...ctx.state.generations.values()].filter((g) => g.stackId === stack.id),
  );
  const activation = latest(
    [...ctx.state.activations.values()].filter((a) => a.stackId === stack.id),
  );
  return {
    stack: stackView(stack),
    generation: generation ? generationView(generation) : null,
    activation: activation ? activationView(activation) : null,
    providers: providersFor(ctx, activation),
  };
}

const documentQuery = z.object({ stackRoot: z.string().min(1) });

async function stackDocument(ctx: Ctx): Promise<unknown> {
  const { stackRoot } = parseWith(documentQuery, Object.fromEntries(ctx.query));
  return await readDocument(await canonicalStackRoot(stackRoot, "documentCode"));
}

const validateSchema = z.strictObject({ client: z.unknown(), definition: z.unknown() });

function validate(ctx: Ctx): unknown {
  const body = parseWith(validateSchema, ctx.body);
  const result = normalizeDefinition(body.definition);
  return result.ok
    ? { valid: true, definition: result.definition, revision: result.revision, issues: [] }
    : { valid: false, definition: null, revision: null, issues: result.issues };
}

function rootMissing(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return false;
  } catch (error) {
    return error instanceof Deno.errors.NotFound;
  }
}

function stackClaims(ctx: Ctx, stack: Stack): Claim[] {
  return [...ctx.state.claims.values()].filter((c) =>
    c.project === stack.project && c.workspaceRoot === stack.stackRoot
  );
}

function pruneBlockers(ctx: Ctx, stack: Stack): string[] {
  const reasons: string[] = [];
  for (const op of activeLauncherOps(ctx, stack.id)) {
    reasons.push(`launcher-operation-active:${op.operation}`);
  }
  for (const a of ctx.state.activations.values()) {
    if (a.stackId !== stack.id) continue;
    if (a.state === "starting") reasons.push("pending-activation");
  }
  for (const claim of stackClaims(ctx, stack)) {
    const name = `${claim.component}.${claim.endpoint}`;
    if (ctx.state.livePendingLease(claim.id, ctx.lapseAt)) reasons.push(`pending-lease:${name}`);
    if (ctx.state.activeRunForClaim(claim.id)) reasons.push(`confirmed-run:${name}`);
    if (claim.assignedPort !== null && ctx.observe().onPort(claim.assignedPort).length > 0) {
      reasons.push(`live-listener:${claim.assignedPort}`);
    }
  }
  return [...new Set(reasons)].sort();
}

/** Stack prune plan or execution (deletes the stack's records and endpoint claims). */
export function pruneStacks(ctx: Ctx, olderThan: number, dryRun: boolean): Record<string, unknown> {
  sweepLeases(ctx);
  const cutoff = new Date(ctx.now - olderThan).toISOString();
  const candidates: { stack: Stack; claimIds: string[] }[] = [];
  const blocked: { stack: Record<string, unknown>; reasons: string[] }[] = [];
  const ordered = [...ctx.state.stacks.values()].sort((a, b) => compareStrings(a.id, b.id));
  for (const stack of ordered) {
    if (stack.lastUsedAt > cutoff || !rootMissing(stack.stackRoot)) continue;
    const reasons = pruneBlockers(ctx, stack);
    if (reasons.length) blocked.push({ stack: stackView(stack), reasons });
    else candidates.push({ stack, claimIds: stackClaims(ctx, stack).map((c) => c.id).sort() });
  }
  const deletedStackIds: string[] = [];
  const deletedClaimIds: string[] = [];
  if (!dryRun) {
    for (const { stack, claimIds } of candidates) {
      for (const [id, g] of ctx.state.generations) {
        if (g.stackId === stack.id) ctx.state.generations.delete(id);
      }
      for (const [id, a] of ctx.state.activations) {
        if (a.stackId === stack.id) ctx.state.activations.delete(id);
      }
      for (const [id, e] of ctx.state.launcher) {
        if (e.record.stackId === stack.id) ctx.state.launcher.delete(id);
      }
      for (const claimId of claimIds) {
        const claim = ctx.state.claims.get(claimId);
        if (!claim) continue;
        ctx.state.claims.delete(claimId);
        ctx.event("claim.pruned", "claim", claimId, {
          claim: claimView(claim),
          reason: "stack-root-missing",
        });
        deletedClaimIds.push(claimId);
      }
      ctx.state.stacks.delete(stack.id);
      ctx.event("stack.pruned", "stack", stack.id, {
        project: stack.project,
        stackRoot: stack.stackRoot,
      });
      deletedStackIds.push(stack.id);
    }
  }
  return {
    dryRun,
    candidates: candidates.map((c) => ({
      stack: stackView(c.stack),
      claimIds: c.claimIds,
      reason: "stack-root-missing",
    })),
    blocked,
    deletedStackIds,
    deletedClaimIds,
    skipped: [],
  };
}

export const stackRoutes: Route[] = [
  get("/v1/stacks", listStacks),
  get("/v1/stacks/:stackId", (ctx) => stackView(stackOr404(ctx, ctx.params.stackId))),
  post("/v1/stacks/apply", apply, applySchema),
  post("/v1/stacks/prune", pruneHandler(pruneStacks), pruneSchema),
  post("/v1/stacks/:stackId/status", status, undefined, { readOnly: true }),
  get("/v1/stack-document", stackDocument),
  post("/v1/actions/stack-definition/validate", validate, validateSchema, { readOnly: true }),
];
