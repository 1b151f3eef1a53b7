// Standalone two-phase allocation: acquire → confirm/abandon, renew, and run release.
import { z } from "zod";
import { automaticPorts, blockerFor } from "../allocation.ts";
import type { Ctx } from "../core.ts";
import { fail, parseWith } from "../errors.ts";
import {
  checkLease,
  confirmLease,
  createClaim,
  expireEphemeralAssignments,
  proveOwnership,
  releaseRun,
  sweepLeases,
} from "../lifecycle.ts";
import { reclaim } from "../reclamation.ts";
import { post, type Route } from "../router.ts";
import {
  abandonReasonSchema,
  ident128,
  policySchema,
  portSchema,
  tokenSchema,
} from "../schemas.ts";
import type { Claim, Lease } from "../state.ts";
import { iso, newSecret, sha256Hex, uuid } from "../util.ts";

const acquireSchema = z.object({
  claim: z.object({
    project: ident128,
    workspaceRoot: z.string().min(1),
    component: ident128.optional(),
    service: ident128.optional(),
    endpoint: ident128.default("default"),
    transport: z.literal("tcp"),
  }).refine((c) => c.component !== undefined || c.service !== undefined, {
    message: "component (or the legacy service) is required",
  }).refine((c) => !(c.component && c.service && c.component !== c.service), {
    message: "service and component must be equal when both are given",
  }),
  allocation: z.object({
    mode: z.enum(["sticky", "ephemeral"]).default("sticky"),
    preferredPort: portSchema.optional(),
    exactPort: portSchema.optional(),
    replacementPolicy: policySchema.default("never"),
  }).refine((a) => a.preferredPort === undefined || a.exactPort === undefined, {
    message: "preferredPort and exactPort are mutually exclusive",
  }),
});

async function acquire(ctx: Ctx): Promise<unknown> {
  const body = parseWith(acquireSchema, ctx.body);
  sweepLeases(ctx);
  expireEphemeralAssignments(ctx);
  const component = (body.claim.component ?? body.claim.service)!;
  const alloc = body.allocation;
  let claim = ctx.state.findClaim(
    body.claim.project,
    body.claim.workspaceRoot,
    component,
    body.claim.endpoint,
  );
  if (claim) {
    if (claim.mode !== alloc.mode) {
      throw fail.conflict(`Claim ${claim.id} is ${claim.mode}, not ${alloc.mode}.`, {
        claimId: claim.id,
        mode: claim.mode,
      });
    }
    const pending = ctx.state.livePendingLease(claim.id, ctx.lapseAt);
    if (pending) {
      throw fail.conflict(`Claim ${claim.id} already has a pending lease.`, {
        claimId: claim.id,
        leaseId: pending.id,
        reason: "claim_pending",
      });
    }
    if (
      alloc.exactPort !== undefined && claim.assignedPort !== null &&
      claim.assignedPort !== alloc.exactPort
    ) {
      throw fail.conflict(`Claim ${claim.id} is assigned port ${claim.assignedPort}.`, {
        claimId: claim.id,
        assignedPort: claim.assignedPort,
      });
    }
    const run = ctx.state.activeRunForClaim(claim.id);
    if (run) {
      if (alloc.replacementPolicy === "never") {
        throw fail.conflict(`Claim ${claim.id} has an active run.`, {
          claimId: claim.id,
          runId: run.id,
          port: run.port,
          reason: "active_run",
        });
      }
      const result = await reclaim(ctx, run.port, alloc.replacementPolicy, false, "reclaim");
      if (result.outcome !== "terminated" && result.outcome !== "already-free") {
        throw fail.conflict(`The previous run of claim ${claim.id} could not be replaced.`, {
          claimId: claim.id,
          runId: run.id,
          port: run.port,
          reclamation: result,
        });
      }
    }
  }
  // The daemon stores a new claim before it picks a port, so the claim (and its
  // claim.created event) survives even when no port can be leased, e.g. an exact port that
  // already has a listener.
  if (!claim) {
    claim = createClaim(ctx, {
      project: body.claim.project,
      workspaceRoot: body.claim.workspaceRoot,
      component,
      endpoint: body.claim.endpoint,
      mode: alloc.mode,
      preferredPort: alloc.preferredPort ?? null,
      exactPort: alloc.exactPort ?? null,
    });
  }
  const port = choosePort(ctx, claim, alloc.preferredPort, alloc.exactPort);
  const token = newSecret();
  // From the start of the acquire, as the daemon does: a lease that waited its turn in a busy
  // daemon is answered with that much less of its TTL left, or already expired.
  const lease: Lease = {
    id: uuid(),
    claimId: claim.id,
    port,
    state: "pending",
    tokenHash: sha256Hex(token),
    expiresAt: iso(ctx.startedAt + ctx.settings.leaseTtlMilliseconds),
    activationId: null,
    updatedAt: ctx.at,
  };
  ctx.state.leases.set(lease.id, lease);
  ctx.event("lease.acquired", "lease", lease.id, {
    claimId: claim.id,
    port,
    expiresAt: lease.expiresAt,
  });
  return {
    claimId: claim.id,
    leaseId: lease.id,
    leaseToken: token,
    port,
    expiresAt: lease.expiresAt,
    reusedAssignment: claim.assignedPort === port,
  };
}

function choosePort(
  ctx: Ctx,
  claim: Claim,
  preferred: number | undefined,
  exact: number | undefined,
): number {
  const claimId = claim.id;
  // A claim that already holds an assignment only ever gets that port.
  const fixed = claim.assignedPort ?? exact;
  if (fixed !== undefined && fixed !== null) {
    const blocker = blockerFor(ctx, fixed, claimId);
    if (blocker === "live_listener") {
      throw fail.conflict(`Port ${fixed} already has a listener.`, { port: fixed });
    }
    if (blocker) {
      throw fail.conflict(`Port ${fixed} is held by another claim or lease.`, {
        port: fixed,
        reason: blocker,
      });
    }
    return fixed;
  }
  if (preferred !== undefined && blockerFor(ctx, preferred, claimId) === null) return preferred;
  for (const port of automaticPorts(ctx)) {
    if (blockerFor(ctx, port, claimId) === null) return port;
  }
  throw fail.conflict("No port is available in the automatic ranges.");
}

function leaseFor(ctx: Ctx): Lease {
  const lease = ctx.state.leases.get(ctx.params.leaseId);
  if (!lease) throw fail.notFound(`Lease ${ctx.params.leaseId} was not found.`);
  return lease;
}

const renewSchema = z.object({ leaseToken: tokenSchema });

function renew(ctx: Ctx): unknown {
  const body = parseWith(renewSchema, ctx.body);
  sweepLeases(ctx);
  const lease = leaseFor(ctx);
  checkLease(lease, body.leaseToken, ctx.lapseAt);
  lease.expiresAt = iso(ctx.now + ctx.settings.leaseTtlMilliseconds);
  lease.updatedAt = ctx.at;
  const endpoint = lease.activationId
    ? ctx.state.activations.get(lease.activationId)?.endpoints.find((e) => e.leaseId === lease.id)
    : undefined;
  if (endpoint) endpoint.expiresAt = lease.expiresAt;
  ctx.event("lease.renewed", "lease", lease.id, { expiresAt: lease.expiresAt });
  return { leaseId: lease.id, expiresAt: lease.expiresAt };
}

const confirmSchema = z.object({
  leaseToken: tokenSchema,
  rootPid: z.number().int().positive(),
});

function confirm(ctx: Ctx): unknown {
  const body = parseWith(confirmSchema, ctx.body);
  // No sweep here: an overdue lease reports lease_expired, as upstream.
  const lease = leaseFor(ctx);
  // The daemon takes fresh listener evidence BEFORE it looks at the lease state or token:
  // with nothing (or a stranger) listening, even a bad token or a settled lease is a 409
  // ownership conflict.
  const proof = proveOwnership(ctx, lease.port, body.rootPid);
  checkLease(lease, body.leaseToken, ctx.lapseAt);
  const { run, claim } = confirmLease(ctx, lease, body.rootPid, proof);
  if (claim) {
    claim.assignmentExpiresAt = claim.mode === "ephemeral"
      ? iso(ctx.now + ctx.settings.ephemeralAssignmentTtlMilliseconds)
      : null;
  }
  return {
    claimId: lease.claimId,
    leaseId: lease.id,
    runId: run.id,
    port: lease.port,
    confirmedAt: run.confirmedAt,
  };
}

const abandonSchema = z.object({ leaseToken: tokenSchema, reason: abandonReasonSchema });

function abandon(ctx: Ctx): unknown {
  const body = parseWith(abandonSchema, ctx.body);
  const lease = leaseFor(ctx);
  checkLease(lease, body.leaseToken, ctx.lapseAt);
  lease.state = body.reason === "address-in-use" ? "collision" : "abandoned";
  lease.updatedAt = ctx.at;
  ctx.event("lease.abandoned", "lease", lease.id, { reason: body.reason, port: lease.port });
  return { changed: true, at: lease.updatedAt };
}

function release(ctx: Ctx): unknown {
  const run = ctx.state.runs.get(ctx.params.runId);
  if (!run || run.state !== "confirmed") return { changed: false, at: ctx.at };
  releaseRun(ctx, run, run.activationId ? { activationId: run.activationId } : {});
  return { changed: true, at: ctx.at };
}

export const leaseRoutes: Route[] = [
  post("/v1/leases/acquire", acquire, acquireSchema),
  post("/v1/leases/:leaseId/renew", renew, renewSchema),
  post("/v1/leases/:leaseId/confirm", confirm, confirmSchema),
  post("/v1/leases/:leaseId/abandon", abandon, abandonSchema),
  post("/v1/runs/:runId/release", release),
];
