// Discovery: resolve a consumer's own and dependency addresses, or render a snapshot for
// containers that reach the host through a gateway name.
import { z } from "zod";
import type { Ctx } from "../core.ts";
import { fail, parseWith } from "../errors.ts";
import { sweepLeases } from "../lifecycle.ts";
import { post, type Route } from "../router.ts";
import { name128 } from "../schemas.ts";
import type { GenerationEndpoint } from "../state.ts";
import { compareStrings } from "../util.ts";
import { activationOr404 } from "./activations.ts";

interface Target {
  component: string;
  endpoint: string;
  port: number;
  dockerNetwork: { transport: "tcp"; host: string; port: number } | null;
}

function resolveTargets(ctx: Ctx, component: string): {
  header: Record<string, unknown>;
  own: [string, Target][];
  deps: [string, Target][];
} {
  sweepLeases(ctx);
  const activation = activationOr404(ctx, ctx.params.activationId);
  if (["failed", "lost", "ended"].includes(activation.state)) {
    throw fail.conflict(`Activation ${activation.id} is ${activation.state}.`, {
      activationId: activation.id,
      reason: "activation_inactive",
    });
  }
  const generation = ctx.state.generations.get(activation.generationId);
  const stack = ctx.state.stacks.get(activation.stackId);
  if (
    !generation || !stack || generation.state !== "valid" ||
    generation.revision !== stack.currentRevision
  ) {
    throw fail.conflict(`The generation of activation ${activation.id} is stale.`, {
      activationId: activation.id,
      generationId: activation.generationId,
      reason: "stale_generation",
    });
  }
  const spec = stack.definition.components[component];
  if (!spec) {
    throw fail.notFound(`Component ${component} is not in the stack.`, {
      stackId: stack.id,
      component,
    });
  }
  const slot = (c: string, e: string): GenerationEndpoint | undefined =>
    generation.endpoints.find((g) => g.component === c && g.endpoint === e);
  const target = (c: string, e: string, g: GenerationEndpoint): Target => {
    const provider = stack.definition.components[c];
    const containerPort = provider?.endpoints[e]?.docker?.containerPort;
    return {
      component: c,
      endpoint: e,
      port: g.port,
      dockerNetwork: provider?.docker && containerPort
        ? { transport: "tcp", host: provider.docker.service, port: containerPort }
        : null,
    };
  };
  const own: [string, Target][] = [];
  for (const [name, e] of Object.entries(spec.endpoints)) {
    if (!e.publish) continue;
    const g = slot(component, name);
    if (!g) {
      throw fail.conflict(`Endpoint ${component}.${name} is missing from the generation.`, {
        component,
        endpoint: name,
        reason: "generation_endpoint_missing",
      });
    }
    own.push([name, target(component, name, g)]);
  }
  const deps: [string, Target][] = [];
  for (const [alias, dep] of Object.entries(spec.dependencies)) {
    const g = slot(dep.component, dep.endpoint);
    const ae = activation.endpoints.find((e) =>
      e.component === dep.component && e.endpoint === dep.endpoint
    );
    const usable = g && ae && ae.required !== false &&
      (ae.state === "leased" || ae.state === "confirmed");
    const optionalUsable = g && ae && (ae.state === "leased" || ae.state === "confirmed");
    if (dep.required && !usable) {
      if (!g) {
        throw fail.conflict(
          `Endpoint ${dep.component}.${dep.endpoint} is missing from the generation.`,
          {
            component: dep.component,
            endpoint: dep.endpoint,
            reason: "generation_endpoint_missing",
          },
        );
      }
      throw fail.conflict(`Required dependency ${alias} is not available.`, {
        consumer: component,
        alias,
        component: dep.component,
        endpoint: dep.endpoint,
        reason: "required_dependency_unavailable",
      });
    }
    if (optionalUsable) deps.push([alias, target(dep.component, dep.endpoint, g)]);
  }
  const byKey = (a: [string, Target], b: [string, Target]) => compareStrings(a[0], b[0]);
  return {
    header: {
      schemaVersion: 1,
      definitionRevision: generation.revision,
      generationId: generation.id,
      activationId: activation.id,
      component,
    },
    own: own.sort(byKey),
    deps: deps.sort(byKey),
  };
}

const resolveSchema = z.strictObject({ client: z.unknown(), component: name128 });

function resolve(ctx: Ctx): unknown {
  const body = parseWith(resolveSchema, ctx.body);
  const r = resolveTargets(ctx, body.component);
  const view = (t: Target) => ({
    component: t.component,
    endpoint: t.endpoint,
    host: { transport: "tcp", host: "127.0.0.1", port: t.port },
    dockerNetwork: t.dockerNetwork,
  });
  return {
    ...r.header,
    own: Object.fromEntries(r.own.map(([k, t]) => [k, view(t)])),
    dependencies: Object.fromEntries(r.deps.map(([k, t]) => [k, view(t)])),
  };
}

const snapshotSchema = z.strictObject({
  client: z.unknown(),
  component: name128,
  gatewayHost: z.string().min(1).max(253).regex(/^[^\s/]+$/),
});

function snapshot(ctx: Ctx): unknown {
  const body = parseWith(snapshotSchema, ctx.body);
  const r = resolveTargets(ctx, body.component);
  const view = (t: Target) => ({
    component: t.component,
    endpoint: t.endpoint,
    address: { transport: "tcp", host: body.gatewayHost, port: t.port },
  });
  return {
    ...r.header,
    own: Object.fromEntries(r.own.map(([k, t]) => [k, view(t)])),
    dependencies: Object.fromEntries(r.deps.map(([k, t]) => [k, view(t)])),
  };
}

export const discoveryRoutes: Route[] = [
  post("/v1/stack-activations/:activationId/resolve", resolve, resolveSchema, { readOnly: true }),
  post("/v1/stack-activations/:activationId/snapshot", snapshot, snapshotSchema, {
    readOnly: true,
  }),
];
