/**
 * Stack activation lifecycle: prepare a generation, begin (one pending lease per endpoint,
 * credentials into custody), confirm / skip / abandon each endpoint, reconcile, end.
 */
import { z } from "zod";
import { defineTool } from "../define.ts";
import {
  abandonReason,
  activation,
  custodyTimes,
  generation,
  handle,
  pid,
  port,
  provider,
  timestamp,
  uuid,
} from "../shapes.ts";
import { epoch, id, mutate, read } from "../daemon_calls.ts";
import { custodyView } from "../custody_views.ts";
import type { ToolContext } from "../context.ts";
import { invalidInput } from "../../errors.ts";
import { CredentialUnavailableError } from "../../custody/mod.ts";
import { heldWithOtherArguments } from "../memory.ts";

const CAPS = ["stack-activations-v1"];
type Activation = z.output<typeof activation>;

export const stackPrepare = defineTool({
  name: "portreeve_stack_prepare",
  title: "Prepare a generation",
  kind: "mutation",
  capabilities: CAPS,
  description:
    "Choose a port for every published endpoint of a stack (reusing the current generation when still valid). Starts nothing and creates no lease.",
  input: z.strictObject({ stackId: uuid() }),
  output: z.object({ changed: z.boolean(), reused: z.boolean(), generation }),
  async call(ctx, { stackId }) {
    const data = await mutate(ctx, `/v1/stacks/${id(stackId)}/prepare`, { stackId }) as {
      reused: boolean;
      generation: z.input<typeof generation>;
    };
    return { changed: !data.reused, reused: data.reused, generation: data.generation };
  },
  summary: (d) =>
    `${d.reused ? "Reused" : "Prepared"} generation ${d.generation.id}: ${
      d.generation.endpoints.map((e) => `${e.component}.${e.endpoint}=${e.port}`).join(", ")
    }.`,
});

const endpointRef = z.strictObject({
  component: z.string().min(1).max(128),
  endpoint: z.string().min(1).max(128).default("default"),
});

const heldLease = z.object({
  component: z.string(),
  endpoint: z.string(),
  leaseId: uuid(),
  port: port(),
  bindingKind: z.enum(["process", "docker"]),
  docker: z.object({
    service: z.string(),
    containerPort: port(),
    requiredLabels: z.record(z.string(), z.string()),
  })
    .nullable(),
  credentialHandle: handle(),
  leaseExpiresAt: timestamp(),
  ...custodyTimes,
});

const beginOutput = z.object({
  changed: z.boolean(),
  activation,
  leases: z.array(heldLease),
  credentialCount: z.int(),
  ...custodyTimes,
});

interface Began {
  activationId: string;
  leases: BeganLease[];
}

interface BeganLease {
  component: string;
  endpoint: string;
  leaseId: string;
  port: number;
  bindingKind: "process" | "docker";
  docker: { service: string; containerPort: number; requiredLabels: Record<string, string> } | null;
}

export const activationBegin = defineTool({
  name: "portreeve_activation_begin",
  title: "Begin an activation",
  kind: "mutation",
  capabilities: CAPS,
  description:
    "Lease every endpoint of a prepared generation. Start each on its port, then confirm, skip or abandon it by credentialHandle. A repeat returns the activation held.",
  input: z.strictObject({
    generationId: uuid(),
    requiredEndpoints: z.array(endpointRef).default([]),
    skippedEndpoints: z.array(endpointRef).default([]),
    bindings: z.record(z.string().min(1).max(128), z.enum(["process", "docker"])).default({}),
  }),
  output: beginOutput,
  call(ctx, input) {
    // Endpoint lists are sets: the same endpoints in another order are the same request.
    const sorted = (refs: { component: string; endpoint: string }[]) =>
      refs.map((r) => `${r.component}.${r.endpoint}`).sort();
    const request = {
      required: sorted(input.requiredEndpoints),
      skipped: sorted(input.skippedEndpoints),
      bindings: input.bindings,
    };
    return ctx.memory.target(`begin:${input.generationId}`, request, {
      held: (previous: Began) =>
        (ctx.custody.heldActivation(previous.activationId)?.credentialCount ?? 0) > 0,
      async replay(previous: Began) {
        const current = await read(
          ctx,
          `/v1/stack-activations/${id(previous.activationId)}`,
        ) as Activation;
        const held = ctx.custody.heldActivation(previous.activationId);
        if (!held) throw new CredentialUnavailableError();
        return beginView(false, current, previous.leases, held);
      },
      async start() {
        const docker = Object.values(input.bindings).includes("docker");
        const data = await mutate(ctx, "/v1/stack-activations/begin", input, {
          capabilities: docker ? [...CAPS, "docker-evidence-v1"] : CAPS,
        }) as {
          activation: Activation;
          leases: (BeganLease & { leaseToken: string; expiresAt: string })[];
        };
        const kept = ctx.custody.holdActivation(
          data.activation.id,
          data.leases.map((l) => ({
            leaseId: l.leaseId,
            token: l.leaseToken,
            expiresAt: epoch(l.expiresAt),
            component: l.component,
            endpoint: l.endpoint,
          })),
        );
        const leases = data.leases.map(({ leaseToken: _secret, expiresAt: _e, ...lease }) => lease);
        const record: Began = { activationId: data.activation.id, leases };
        return { result: beginView(true, data.activation, leases, kept), record };
      },
      conflict: (previous: Began) =>
        heldWithOtherArguments(
          `activation ${previous.activationId} of this generation`,
          "to begin with other endpoints or bindings, abandon its pending endpoints (portreeve_activation_abandon_endpoint) and end it (portreeve_activation_end) first, then begin again.",
          { activationId: previous.activationId },
        ),
    });
  },
  summary: (d) =>
    `${
      d.changed ? "Began" : "Already holding"
    } activation ${d.activation.id} (${d.activation.state}): ${
      d.leases.map((l) => `${l.component}.${l.endpoint}=${l.port}`).join(", ")
    }; ${d.credentialCount} credential(s) held until ${d.custodyExpiresAt}.`,
});

function beginView(
  changed: boolean,
  current: Activation,
  leases: BeganLease[],
  held: {
    leases: { handle: string; leaseId: string; expiresAt: number }[];
    custodyExpiresAt: number;
    maximumCustodyExpiresAt: number;
    credentialCount: number;
  },
) {
  const handles = new Map(held.leases.map((l) => [l.leaseId, l]));
  // Custody is held per activation, so every lease shares the group's window.
  const custody = custodyView(held);
  return {
    changed,
    activation: current,
    leases: leases.filter((l) => handles.has(l.leaseId)).map((l) => ({
      ...l,
      credentialHandle: handles.get(l.leaseId)!.handle,
      leaseExpiresAt: new Date(handles.get(l.leaseId)!.expiresAt).toISOString(),
      ...custody,
    })),
    credentialCount: held.credentialCount,
    ...custody,
  };
}

export const activationCustodyExtend = defineTool({
  name: "portreeve_activation_custody_extend",
  title: "Extend activation custody",
  kind: "mutation",
  description:
    "Keep renewing this activation's pending leases for longer: custody becomes acquisition + custodyMinutes (10–60). Only lengthens; no daemon change.",
  input: z.strictObject({ activationId: uuid(), custodyMinutes: z.int().min(10).max(60) }),
  output: z.object({
    changed: z.boolean(),
    activationId: uuid(),
    credentialCount: z.int(),
    ...custodyTimes,
  }),
  call: (ctx, { activationId, custodyMinutes }) => {
    const extended = ctx.custody.extendActivation(activationId, custodyMinutes);
    return Promise.resolve({
      changed: extended.changed,
      activationId: extended.activationId,
      credentialCount: extended.credentialCount,
      ...custodyView(extended),
    });
  },
  summary: (d) =>
    `${
      d.changed ? "Extended" : "Unchanged"
    }: ${d.credentialCount} credential(s) held until ${d.custodyExpiresAt}.`,
});

const settled = z.object({ changed: z.boolean(), activation });

/**
 * Shared path of confirm / skip / abandon: use the handle, call the daemon once, then erase
 * every credential of the activation whose endpoint is no longer leased (siblings included).
 */
function settleEndpoint(
  ctx: ToolContext,
  action: "confirm" | "skip" | "abandon",
  activationId: string,
  credentialHandle: string,
  body: Record<string, unknown>,
  capabilities?: readonly string[],
) {
  return ctx.memory.once(
    `activation-${action}:${credentialHandle}`,
    { activationId, body },
    async () => {
      const { leaseId, token } = ctx.custody.useActivationLease(activationId, credentialHandle);
      const next = await mutate(ctx, `/v1/stack-activations/${id(activationId)}/${action}`, {
        leaseId,
        leaseToken: token,
        ...body,
      }, { capabilities }) as Activation;
      const stillLeased = new Set(
        next.endpoints.filter((e) => e.state === "leased" && e.leaseId).map((e) => e.leaseId!),
      );
      ctx.custody.settleActivationLeases(activationId, stillLeased);
      return { activation: next };
    },
  );
}

const settledSummary = (verb: string) => (d: z.output<typeof settled>) =>
  `${
    d.changed ? verb : "Already settled"
  }; activation ${d.activation.id} is ${d.activation.state} (${
    d.activation.endpoints.map((e) => `${e.component}.${e.endpoint} ${e.state}`).join(", ")
  }).`;

export const activationConfirmEndpoint = defineTool({
  name: "portreeve_activation_confirm_endpoint",
  title: "Confirm an endpoint",
  kind: "mutation",
  capabilities: CAPS,
  description:
    "Prove one endpoint is up: bindingKind process with the listener's rootPid, or docker with containerId. Erases its credential.",
  input: z.strictObject({
    activationId: uuid(),
    credentialHandle: handle(),
    bindingKind: z.enum(["process", "docker"]),
    rootPid: pid().optional(),
    containerId: z.string().regex(/^[a-f0-9]{12,64}$/).optional(),
  }),
  output: settled,
  call(ctx, { activationId, credentialHandle, bindingKind, rootPid, containerId }) {
    // One object root instead of the anchor's top-level anyOf (some hosts reject it); the
    // exclusivity of the two evidence kinds is checked here instead.
    if (bindingKind === "process" && (rootPid === undefined || containerId !== undefined)) {
      return Promise.reject(invalidInput("bindingKind process needs rootPid and no containerId."));
    }
    if (bindingKind === "docker" && (containerId === undefined || rootPid !== undefined)) {
      return Promise.reject(invalidInput("bindingKind docker needs containerId and no rootPid."));
    }
    const evidence = bindingKind === "process"
      ? { bindingKind, rootPid }
      : { bindingKind, containerId };
    const caps = bindingKind === "docker" ? [...CAPS, "docker-evidence-v1"] : CAPS;
    return settleEndpoint(ctx, "confirm", activationId, credentialHandle, evidence, caps);
  },
  summary: settledSummary("Endpoint confirmed"),
});

export const activationSkipEndpoint = defineTool({
  name: "portreeve_activation_skip_endpoint",
  title: "Skip an endpoint",
  kind: "mutation",
  capabilities: CAPS,
  description:
    "Skip one optional endpoint you will not start, releasing its lease and erasing its credential.",
  input: z.strictObject({ activationId: uuid(), credentialHandle: handle() }),
  output: settled,
  call: (ctx, { activationId, credentialHandle }) =>
    settleEndpoint(ctx, "skip", activationId, credentialHandle, {}),
  summary: settledSummary("Endpoint skipped"),
});

export const activationAbandonEndpoint = defineTool({
  name: "portreeve_activation_abandon_endpoint",
  title: "Abandon an endpoint",
  kind: "mutation",
  capabilities: CAPS,
  description:
    "Report that one endpoint failed to start. A required endpoint fails the whole activation and cancels its other leases.",
  input: z.strictObject({
    activationId: uuid(),
    credentialHandle: handle(),
    reason: abandonReason(),
  }),
  output: settled,
  call: (ctx, { activationId, credentialHandle, reason }) =>
    settleEndpoint(ctx, "abandon", activationId, credentialHandle, { reason }),
  summary: settledSummary("Endpoint abandoned"),
});

export const activationReconcile = defineTool({
  name: "portreeve_activation_reconcile",
  title: "Reconcile an activation",
  kind: "mutation",
  capabilities: CAPS,
  description:
    "Re-check a running activation's providers; if all are gone it becomes lost and its runs are released. Safe to repeat.",
  input: z.strictObject({ activationId: uuid() }),
  output: z.object({ changed: z.boolean(), activation, providers: z.array(provider) }),
  call: async (ctx, { activationId }) =>
    await mutate(ctx, `/v1/stack-activations/${id(activationId)}/reconcile`) as {
      changed: boolean;
      activation: Activation;
      providers: z.input<typeof provider>[];
    },
  summary: (d) =>
    `Activation ${d.activation.id} is ${d.activation.state}${d.changed ? " (changed)" : ""}; ${
      d.providers.filter((p) => p.status === "active").length
    }/${d.providers.length} provider(s) active.`,
});

export const activationEnd = defineTool({
  name: "portreeve_activation_end",
  title: "End an activation",
  kind: "mutation",
  capabilities: CAPS,
  description:
    "End an activation once its processes are stopped; refused while a lease is pending or a provider still listens. Never signals anything. Safe to repeat.",
  input: z.strictObject({ activationId: uuid() }),
  output: settled,
  async call(ctx, { activationId }) {
    const data = await mutate(ctx, `/v1/stack-activations/${id(activationId)}/end`) as z.input<
      typeof settled
    >;
    ctx.custody.settleActivationLeases(activationId, new Set());
    return data;
  },
  summary: (d) =>
    d.changed
      ? `Activation ${d.activation.id} ended.`
      : `Activation ${d.activation.id} had already ended.`,
});
