// Activations: begin (one lease per endpoint), renew, confirm, abandon, skip, reconcile, end.
import { z } from "zod";
import type { Ctx } from "../core.ts";
import { fail, parseWith, ProtocolError } from "../errors.ts";
import {
  checkLease,
  confirmLease,
  proveOwnership,
  recomputeActivation,
  releaseRun,
  sweepLeases,
} from "../lifecycle.ts";
import { providerFor, providersFor } from "../providers.ts";
import { get, post, type Route } from "../router.ts";
import { abandonReasonSchema, name128, tokenSchema, uuidSchema } from "../schemas.ts";
import type { Activation, ActivationEndpoint, Lease } from "../state.ts";
import { compareStrings, iso, newSecret, sha256Hex, uuid } from "../util.ts";
import { activationView } from "../views.ts";
import { generationOr404, invalidate } from "./generations.ts";
import { liveActivation, stackOr404 } from "./stacks.ts";

const selection = z.strictObject({ component: name128, endpoint: name128.default("default") });

const beginSchema = z.object({
  generationId: uuidSchema,
  requiredEndpoints: z.array(selection).default([]),
  skippedEndpoints: z.array(selection).default([]),
  bindings: z.record(z.string(), z.enum(["process", "docker"])).default({}),
});

function begin(ctx: Ctx): unknown {
  const body = parseWith(beginSchema, ctx.body);
  sweepLeases(ctx);
  const generation = generationOr404(ctx, body.generationId);
  const stack = stackOr404(ctx, generation.stackId);
  if (generation.state !== "valid" || generation.revision !== stack.currentRevision) {
    throw fail.conflict(`Generation ${generation.id} is stale.`, {
      generationId: generation.id,
      reason: "stale_generation",
    });
  }
  if (liveActivation(ctx, stack.stackRoot)) {
    throw fail.conflict(`Stack ${stack.id} already has a live activation.`, {
      stackRoot: stack.stackRoot,
      reason: "activation_live",
    });
  }
  const def = stack.definition;
  for (const [component, kind] of Object.entries(body.bindings)) {
    const spec = def.components[component];
    if (!spec) {
      throw fail.invalid(`Binding names unknown component ${component}.`, {
        component,
        reason: "binding_component_unknown",
      });
    }
    if (kind !== "docker") continue;
    if (!spec.docker) {
      throw fail.invalid(`Component ${component} has no docker.service.`, {
        component,
        reason: "docker_definition_missing",
      });
    }
    const bare = Object.entries(spec.endpoints).find(([, e]) => e.publish && !e.docker);
    if (bare) {
      throw fail.invalid(`Endpoint ${component}.${bare[0]} has no docker.containerPort.`, {
        component,
        endpoint: bare[0],
        reason: "docker_endpoint_definition_missing",
      });
    }
    // The simulator never observes Docker, like a daemon host without a docker executable.
    throw fail.unavailable("Docker evidence is not available on this (simulated) daemon.", {
      docker: { available: false, reason: "docker-executable-unavailable" },
    });
  }
  const key = (s: { component: string; endpoint: string }) => `${s.component}.${s.endpoint}`;
  const inGeneration = new Set(generation.endpoints.map(key));
  for (const s of [...body.requiredEndpoints, ...body.skippedEndpoints]) {
    if (!inGeneration.has(key(s))) {
      throw fail.invalid(`Endpoint ${key(s)} is not part of the generation.`, { endpoint: key(s) });
    }
  }
  const promoted = new Set(body.requiredEndpoints.map(key));
  const skipped = new Set(body.skippedEndpoints.map(key));
  for (const e of generation.endpoints) {
    if (skipped.has(key(e)) && (e.required || promoted.has(key(e)))) {
      throw fail.invalid("A required endpoint cannot be skipped.", { endpoint: key(e) });
    }
  }
  for (const [consumer, spec] of Object.entries(def.components)) {
    for (const [alias, dep] of Object.entries(spec.dependencies)) {
      const target = def.components[dep.component]?.endpoints[dep.endpoint];
      const name = `${dep.component}.${dep.endpoint}`;
      if (dep.required && target && !target.required && !promoted.has(name)) {
        throw fail.invalid(
          `Dependency ${consumer}.${alias} needs optional endpoint ${name} promoted.`,
          {
            consumer,
            alias,
            component: dep.component,
            endpoint: dep.endpoint,
            reason: "optional_required_dependency",
          },
        );
      }
    }
  }
  const obs = ctx.observe();
  for (const e of generation.endpoints) {
    if (skipped.has(key(e))) continue;
    const run = ctx.state.activeRunForClaim(e.claimId);
    if (run) {
      throw fail.conflict(`Endpoint ${key(e)} still has an active run.`, {
        endpoint: key(e),
        runId: run.id,
        port: e.port,
        reason: "active_run",
      });
    }
    const pending = ctx.state.livePendingLease(e.claimId, ctx.lapseAt);
    if (pending) {
      throw fail.conflict(`Endpoint ${key(e)} has a pending lease.`, {
        endpoint: key(e),
        leaseId: pending.id,
        reason: "pending_lease",
      });
    }
    if (obs.onPort(e.port).length > 0) {
      invalidate(ctx, generation, "listener-present");
      throw fail.conflict(`Port ${e.port} of ${key(e)} is taken; prepare again.`, {
        generationId: generation.id,
        endpoint: key(e),
        port: e.port,
        reason: "stale_generation",
      });
    }
  }
  const activation: Activation = {
    id: uuid(),
    stackId: stack.id,
    generationId: generation.id,
    state: "starting",
    endpoints: [],
    createdAt: ctx.at,
    updatedAt: ctx.at,
    confirmedAt: null,
    endedAt: null,
  };
  // From the start of the request, like a standalone lease (see leases.ts).
  const expiresAt = iso(ctx.startedAt + ctx.settings.leaseTtlMilliseconds);
  const leases: Record<string, unknown>[] = [];
  const pendingEvents: [string, Record<string, unknown>][] = [];
  for (const e of generation.endpoints) {
    const bindingKind = body.bindings[e.component] ?? "process";
    const endpoint: ActivationEndpoint = {
      component: e.component,
      endpoint: e.endpoint,
      claimId: e.claimId,
      port: e.port,
      required: e.required || promoted.has(key(e)),
      bindingKind,
      state: "skipped",
      leaseId: null,
      runId: null,
      expiresAt: null,
      failureReason: "caller-skipped",
      updatedAt: ctx.at,
    };
    if (!skipped.has(key(e))) {
      const token = newSecret();
      const lease: Lease = {
        id: uuid(),
        claimId: e.claimId,
        port: e.port,
        state: "pending",
        tokenHash: sha256Hex(token),
        expiresAt,
        activationId: activation.id,
        updatedAt: ctx.at,
      };
      ctx.state.leases.set(lease.id, lease);
      Object.assign(endpoint, {
        state: "leased",
        leaseId: lease.id,
        expiresAt,
        failureReason: null,
      });
      leases.push({
        component: e.component,
        endpoint: e.endpoint,
        leaseId: lease.id,
        leaseToken: token,
        port: e.port,
        expiresAt,
        bindingKind,
        docker: null,
      });
      pendingEvents.push([lease.id, {
        claimId: e.claimId,
        port: e.port,
        expiresAt,
        activationId: activation.id,
      }]);
    }
    activation.endpoints.push(endpoint);
  }
  ctx.state.activations.set(activation.id, activation);
  ctx.event("stack.activation.began", "stack-activation", activation.id, {
    stackId: stack.id,
    generationId: generation.id,
    leaseCount: leases.length,
  });
  for (const [leaseId, payload] of pendingEvents) {
    ctx.event("lease.acquired", "lease", leaseId, payload);
  }
  recomputeActivation(ctx, activation);
  return { activation: activationView(activation), leases };
}

export function activationOr404(ctx: Ctx, id: string): Activation {
  const a = ctx.state.activations.get(id);
  if (!a) throw fail.notFound(`Activation ${id} was not found.`);
  return a;
}

const listQuery = z.object({
  stackId: uuidSchema.optional(),
  generationId: uuidSchema.optional(),
  state: z.enum(["starting", "confirmed", "degraded", "failed", "lost", "ended"]).optional(),
});

function list(ctx: Ctx): unknown {
  // Like upstream, listing does not sweep expired leases first.
  const q = parseWith(listQuery, Object.fromEntries(ctx.query));
  return [...ctx.state.activations.values()].filter((a) =>
    (q.stackId === undefined || a.stackId === q.stackId) &&
    (q.generationId === undefined || a.generationId === q.generationId) &&
    (q.state === undefined || a.state === q.state)
  ).sort((a, b) => compareStrings(a.id, b.id)).map(activationView);
}

function getOne(ctx: Ctx): unknown {
  sweepLeases(ctx);
  return activationView(activationOr404(ctx, ctx.params.activationId));
}

/** Finds the leased endpoint of `leaseId` and checks its lease and token. */
function leasedEndpoint(
  ctx: Ctx,
  activation: Activation,
  leaseId: string,
  token: string,
): { endpoint: ActivationEndpoint; lease: Lease } {
  const endpoint = activation.endpoints.find((e) => e.leaseId === leaseId);
  const lease = ctx.state.leases.get(leaseId);
  if (!lease) throw fail.notFound(`Lease ${leaseId} was not found.`, { leaseId });
  if (!endpoint) {
    throw fail.conflict(`Lease ${leaseId} is not an endpoint lease of this activation.`, {
      activationId: activation.id,
      leaseId,
      reason: "binding_kind_mismatch",
    });
  }
  checkLease(lease, token, ctx.lapseAt);
  if (activation.state !== "starting" || endpoint.state !== "leased") {
    throw fail.conflict(`Activation ${activation.id} cannot settle this endpoint now.`, {
      activationId: activation.id,
      state: activation.state,
      endpointState: endpoint.state,
    });
  }
  return { endpoint, lease };
}

const renewSchema = z.object({
  leases: z.array(z.strictObject({ leaseId: uuidSchema, leaseToken: tokenSchema })).min(1),
});

function renew(ctx: Ctx): unknown {
  const body = parseWith(renewSchema, ctx.body);
  sweepLeases(ctx);
  const activation = activationOr404(ctx, ctx.params.activationId);
  if (activation.state !== "starting") {
    throw fail.conflict(`Activation ${activation.id} is ${activation.state}, not starting.`, {
      activationId: activation.id,
      state: activation.state,
    });
  }
  // Validate the whole batch before extending anything.
  const checked = body.leases.map((l) => leasedEndpoint(ctx, activation, l.leaseId, l.leaseToken));
  const expiresAt = iso(ctx.now + ctx.settings.leaseTtlMilliseconds);
  for (const { endpoint, lease } of checked) {
    lease.expiresAt = expiresAt;
    lease.updatedAt = ctx.at;
    endpoint.expiresAt = expiresAt;
  }
  ctx.event("stack.activation.renewed", "stack-activation", activation.id, {
    leaseIds: checked.map((c) => c.lease.id),
    expiresAt,
  });
  return {
    activation: activationView(activation),
    leases: checked.map((c) => ({ leaseId: c.lease.id, expiresAt })),
  };
}

const confirmSchema = z.union([
  z.strictObject({
    client: z.unknown(),
    leaseId: uuidSchema,
    leaseToken: tokenSchema,
    bindingKind: z.literal("process").optional(),
    rootPid: z.number().int().positive(),
  }),
  z.strictObject({
    client: z.unknown(),
    leaseId: uuidSchema,
    leaseToken: tokenSchema,
    bindingKind: z.literal("docker"),
    containerId: z.string().regex(/^[a-f0-9]{12,64}$/),
  }),
]);

function confirm(ctx: Ctx): unknown {
  const body = parseWith(confirmSchema, ctx.body);
  sweepLeases(ctx);
  const activation = activationOr404(ctx, ctx.params.activationId);
  const { endpoint, lease } = leasedEndpoint(ctx, activation, body.leaseId, body.leaseToken);
  const kind = body.bindingKind ?? "process";
  if (kind !== endpoint.bindingKind) {
    throw fail.conflict(
      `Endpoint ${endpoint.component}.${endpoint.endpoint} is bound as ${endpoint.bindingKind}.`,
      {
        activationId: activation.id,
        leaseId: lease.id,
        bindingKind: endpoint.bindingKind,
        reason: "binding_kind_mismatch",
      },
    );
  }
  if (!("rootPid" in body)) {
    throw fail.unavailable("Docker evidence is not available on this (simulated) daemon.", {
      docker: { available: false, reason: "docker-executable-unavailable" },
    });
  }
  const proof = proveOwnership(ctx, lease.port, body.rootPid);
  const { run } = confirmLease(ctx, lease, body.rootPid, proof, { activationId: activation.id });
  endpoint.state = "confirmed";
  endpoint.runId = run.id;
  endpoint.updatedAt = ctx.at;
  activation.updatedAt = ctx.at;
  recomputeActivation(ctx, activation);
  return activationView(activation);
}

const abandonSchema = z.object({
  leaseId: uuidSchema,
  leaseToken: tokenSchema,
  reason: abandonReasonSchema,
});

function abandon(ctx: Ctx): unknown {
  const body = parseWith(abandonSchema, ctx.body);
  sweepLeases(ctx);
  const activation = activationOr404(ctx, ctx.params.activationId);
  const { endpoint, lease } = leasedEndpoint(ctx, activation, body.leaseId, body.leaseToken);
  settle(ctx, activation, endpoint, lease, "failed", body.reason);
  return activationView(activation);
}

const skipSchema = z.object({ leaseId: uuidSchema, leaseToken: tokenSchema });

function skip(ctx: Ctx): unknown {
  const body = parseWith(skipSchema, ctx.body);
  sweepLeases(ctx);
  const activation = activationOr404(ctx, ctx.params.activationId);
  const { endpoint, lease } = leasedEndpoint(ctx, activation, body.leaseId, body.leaseToken);
  if (endpoint.required) throw fail.invalid("A required endpoint cannot be skipped.");
  settle(ctx, activation, endpoint, lease, "skipped", "client-cancelled");
  return activationView(activation);
}

function settle(
  ctx: Ctx,
  activation: Activation,
  endpoint: ActivationEndpoint,
  lease: Lease,
  state: "failed" | "skipped",
  reason: "address-in-use" | "startup-error" | "client-cancelled",
): void {
  lease.state = reason === "address-in-use" ? "collision" : "abandoned";
  lease.updatedAt = ctx.at;
  endpoint.state = state;
  endpoint.failureReason = state === "skipped" ? "caller-skipped" : reason;
  endpoint.updatedAt = ctx.at;
  activation.updatedAt = ctx.at;
  ctx.event("lease.abandoned", "lease", lease.id, {
    reason,
    port: lease.port,
    activationId: activation.id,
  });
  recomputeActivation(ctx, activation);
}

function releaseConfirmed(ctx: Ctx, activation: Activation, failureReason: string | null): void {
  for (const e of activation.endpoints) {
    if (e.state !== "confirmed") continue;
    const run = e.runId ? ctx.state.runs.get(e.runId) : undefined;
    if (run && run.state === "confirmed") {
      // After a loss the daemon's run.released payload also says why.
      releaseRun(
        ctx,
        run,
        failureReason === null
          ? { activationId: activation.id }
          : { activationId: activation.id, reason: failureReason },
      );
    }
    e.state = "released";
    e.failureReason = failureReason;
    e.updatedAt = ctx.at;
  }
}

function reconcile(ctx: Ctx): unknown {
  sweepLeases(ctx);
  const activation = activationOr404(ctx, ctx.params.activationId);
  if (activation.state !== "confirmed" && activation.state !== "degraded") {
    return { changed: false, activation: activationView(activation), providers: [] };
  }
  const providers = providersFor(ctx, activation);
  const lost = providers.length > 0 && providers.every((p) => p.status === "gone");
  if (lost) {
    releaseConfirmed(ctx, activation, "provider-lost");
    activation.state = "lost";
    activation.updatedAt = ctx.at;
    ctx.event("stack.activation.lost", "stack-activation", activation.id, {
      providers: providers.map((p) => ({
        component: p.component,
        endpoint: p.endpoint,
        bindingKind: p.bindingKind,
        status: p.status,
        reason: p.reason,
      })),
    });
  }
  return { changed: lost, activation: activationView(activation), providers };
}

function end(ctx: Ctx): unknown {
  sweepLeases(ctx);
  const activation = activationOr404(ctx, ctx.params.activationId);
  if (activation.state === "ended") {
    return { changed: false, activation: activationView(activation) };
  }
  const leased = activation.endpoints.find((e) => e.state === "leased");
  if (leased) {
    throw fail.conflict(`Activation ${activation.id} still has pending leases.`, {
      activationId: activation.id,
      reason: "leases_pending",
    });
  }
  for (const e of activation.endpoints.filter((x) => x.state === "confirmed")) {
    const provider = providerFor(ctx, e);
    const details = { activationId: activation.id, provider };
    const message =
      `Activation ${activation.id} still has provider evidence for ${e.component}.${e.endpoint}.`;
    if (provider.status === "unknown") {
      throw new ProtocolError("unavailable", message, {
        ...details,
        reason: "provider_unobservable",
      });
    }
    if (provider.listeners > 0) {
      throw fail.conflict(message, { ...details, reason: "listener_present" });
    }
    if (provider.status === "active") {
      throw fail.conflict(message, { ...details, reason: "provider_present" });
    }
  }
  releaseConfirmed(ctx, activation, null);
  activation.state = "ended";
  activation.endedAt = ctx.at;
  activation.updatedAt = ctx.at;
  ctx.event("stack.activation.ended", "stack-activation", activation.id, {});
  return { changed: true, activation: activationView(activation) };
}

export const activationRoutes: Route[] = [
  post("/v1/stack-activations/begin", begin, beginSchema),
  get("/v1/stack-activations", list),
  get("/v1/stack-activations/:activationId", getOne),
  post("/v1/stack-activations/:activationId/renew", renew, renewSchema),
  post("/v1/stack-activations/:activationId/confirm", confirm, confirmSchema),
  post("/v1/stack-activations/:activationId/abandon", abandon, abandonSchema),
  post("/v1/stack-activations/:activationId/skip", skip, skipSchema),
  post("/v1/stack-activations/:activationId/reconcile", reconcile),
  post("/v1/stack-activations/:activationId/end", end),
];
