/**
 * Stack activation lifecycle: prepare a generation, begin (one pending lease per endpoint,
 * credentials into custody), confirm / skip / abandon each endpoint, reconcile, end.
 */
import { INPUT_BOUNDS } from "../../shared/input_bounds.ts";
import { z } from "zod";
import { defineTool } from "../define.ts";
import {
  abandonReason,
  boundedRecord,
  custodyTimes,
  handle,
  pid,
  port,
  timestamp,
  uuid,
} from "../shapes.ts";
import { activation, generation, provider } from "../records.ts";
import { mutate, read, stillWanted } from "../daemon_calls.ts";
import { custodyView, epoch } from "../../results/custody_views.ts";
import { coordinates, get, type OutcomeCheck, post } from "../routes.ts";
import { Capability } from "../../daemon/capabilities.ts";
import type { ToolContext } from "../context.ts";
import { invalidInput } from "../../shared/errors.ts";
import { CredentialUnavailableError } from "../../custody/mod.ts";
import { heldWithOtherArguments } from "../memory.ts";

const CAPS = [Capability.stackActivations];
const DOCKER_CAPS = [...CAPS, Capability.dockerEvidence];
type Activation = z.output<typeof activation>;

const A = "/v1/stack-activations/{activationId}";
const prepareRoute = post(
  "/v1/stacks/{stackId}/prepare",
  z.looseObject({ reused: z.boolean(), generation }),
  coordinates("assigns ports to the stack's claims in a generation; starts nothing"),
  {
    tool: "portreeve_generations_list",
    how: "for this stack, to see whether a generation was prepared",
  },
);
const activationRoute = get(A, activation);

export const stackPrepare = defineTool({
  name: "portreeve_stack_prepare",
  title: "Prepare a generation",
  kind: "mutation",
  capabilities: CAPS,
  description: "Pick ports for a stack; leases nothing.",
  input: z.strictObject({ stackId: uuid() }),
  output: z.object({ changed: z.boolean(), reused: z.boolean(), generation }),
  routes: [prepareRoute],
  async call(ctx, { stackId }) {
    const data = await mutate(ctx, prepareRoute, { stackId }, { stackId });
    return { changed: !data.reused, reused: data.reused, generation: data.generation };
  },
});

const endpointRef = z.strictObject({
  component: z.string().min(1).max(128),
  endpoint: z.string().min(1).max(128).default("default"),
});

/** What the daemon says of each lease it began, and the bridge keeps to answer a repeat. */
const beganLease = z.object({
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
});
type BeganLease = z.output<typeof beganLease>;

/** Whether a change to an activation took effect: each endpoint's state says. */
const ACTIVATION_SETTLED: OutcomeCheck = {
  tool: "portreeve_activation_get",
  how: "with this activationId, to see each endpoint's state",
};

const SETTLE_ROUTES = {
  confirm: post(
    `${A}/confirm`,
    activation,
    coordinates("records an endpoint's run"),
    ACTIVATION_SETTLED,
  ),
  skip: post(
    `${A}/skip`,
    activation,
    coordinates("releases an optional endpoint's lease"),
    ACTIVATION_SETTLED,
  ),
  abandon: post(
    `${A}/abandon`,
    activation,
    coordinates("marks an endpoint failed (a required one fails the activation)"),
    ACTIVATION_SETTLED,
  ),
};

const beginRoute = post(
  "/v1/stack-activations/begin",
  z.looseObject({
    activation,
    leases: z.array(beganLease.extend({ leaseToken: z.string(), expiresAt: timestamp() })),
  }),
  // Bindings and endpoint selections choose what is leased; none signals or deletes anything.
  coordinates("leases every selected endpoint of a generation"),
  {
    tool: "portreeve_activations_list",
    how: "for this stack, to see whether an activation began",
  },
  {
    what: "each leased endpoint is abandoned as client-cancelled, its token never held",
    routes: [SETTLE_ROUTES.abandon],
    async undo(began, send) {
      const activationId = began.activation.id;
      let current = began.activation;
      const abandoned: string[] = [];
      for (const { leaseId, leaseToken } of began.leases) {
        // A required endpoint's abandon fails the activation and ends its other leases with it.
        const endpoint = current.endpoints.find((e) => e.leaseId === leaseId);
        if (endpoint && endpoint.state !== "leased") continue;
        current = await send(SETTLE_ROUTES.abandon, {
          params: { activationId },
          body: { leaseId, leaseToken, reason: "client-cancelled" },
        });
        abandoned.push(leaseId);
      }
      return `activation ${activationId}: ${
        abandoned.length > 0 ? `leases ${abandoned.join(", ")}` : "no lease"
      } abandoned as client-cancelled (now ${current.state})`;
    },
  },
);

/**
 * Each lease with its handle, its daemon expiry and how long this bridge holds (and renews) it.
 * Custody is held per activation, so every lease states the same custody times: each lease
 * says them itself, as the reference bridge's do, rather than the answer once for all.
 */
const heldLease = beganLease.extend({
  credentialHandle: handle(),
  leaseExpiresAt: timestamp(),
  ...custodyTimes,
});

const beginOutput = z.object({
  changed: z.boolean(),
  activation,
  leases: z.array(heldLease),
  credentialCount: z.int(),
});

interface Began {
  activationId: string;
  leases: BeganLease[];
}

export const activationBegin = defineTool({
  name: "portreeve_activation_begin",
  title: "Begin an activation",
  kind: "mutation",
  capabilities: CAPS,
  description: "Lease a generation's endpoints, then confirm, skip or abandon each.",
  input: z.strictObject({
    generationId: uuid(),
    requiredEndpoints: z.array(endpointRef).max(INPUT_BOUNDS.stackEntries.max).default([]),
    skippedEndpoints: z.array(endpointRef).max(INPUT_BOUNDS.stackEntries.max).default([]),
    bindings: boundedRecord(z.enum(["process", "docker"])).default({}),
  }),
  output: beginOutput,
  routes: [activationRoute, beginRoute, SETTLE_ROUTES.abandon],
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
        const current = await read(ctx, activationRoute, {
          activationId: previous.activationId,
        });
        const held = ctx.custody.heldActivation(previous.activationId);
        if (!held) throw new CredentialUnavailableError();
        return beginView(false, current, previous.leases, held);
      },
      async start() {
        const docker = Object.values(input.bindings).includes("docker");
        const sentAt = ctx.custody.now();
        const data = await mutate(ctx, beginRoute, {}, input, {
          capabilities: docker ? DOCKER_CAPS : CAPS,
        });
        // Leases dead on arrival, or too close to their expiry to renew in time, are renewed
        // at once or refused as `portreeve_lease_lapsed` (custody's arrival rule).
        const kept = await ctx.custody.admitActivation(
          data.activation.id,
          data.leases.map((l) => ({
            leaseId: l.leaseId,
            token: l.leaseToken,
            expiresAt: epoch(l.expiresAt),
            component: l.component,
            endpoint: l.endpoint,
          })),
          sentAt,
        );
        stillWanted(
          ctx,
          beginRoute,
          data,
          () => ctx.custody.settleActivationLeases(data.activation.id, new Set()),
        );
        const leases = data.leases.map(({ leaseToken: _secret, expiresAt: _e, ...lease }) => lease);
        const record: Began = { activationId: data.activation.id, leases };
        return { result: beginView(true, data.activation, leases, kept), record };
      },
      conflict: (previous: Began) =>
        heldWithOtherArguments(
          "activation",
          `activation ${previous.activationId} of this generation`,
          { activationId: previous.activationId },
        ),
    });
  },
});

/**
 * The begin's answer as the agent reads it: one expiry per lease. Custody renews a lease at
 * once when the daemon granted it too close to its expiry (on a slow daemon, seconds after
 * the begin answered), so the activation record's `expiresAt` of a held lease is custody's,
 * the daemon's answer to that renewal, as `leases[].leaseExpiresAt` is.
 */
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
  const expiry = (leaseId: string) => new Date(handles.get(leaseId)!.expiresAt).toISOString();
  const custody = custodyView(held);
  return {
    changed,
    activation: {
      ...current,
      endpoints: current.endpoints.map((endpoint) =>
        endpoint.leaseId !== null && handles.has(endpoint.leaseId)
          ? { ...endpoint, expiresAt: expiry(endpoint.leaseId) }
          : endpoint
      ),
    },
    leases: leases.filter((l) => handles.has(l.leaseId)).map((l) => ({
      ...l,
      credentialHandle: handles.get(l.leaseId)!.handle,
      leaseExpiresAt: expiry(l.leaseId),
      ...custody,
    })),
    credentialCount: held.credentialCount,
  };
}

export const activationCustodyExtend = defineTool({
  name: "portreeve_activation_custody_extend",
  title: "Extend activation custody",
  kind: "mutation",
  description: "Renew pending leases to acquisition + custodyMinutes (10–60).",
  input: z.strictObject({ activationId: uuid(), custodyMinutes: z.int().min(10).max(60) }),
  output: z.object({
    changed: z.boolean(),
    activationId: uuid(),
    credentialCount: z.int(),
    ...custodyTimes,
  }),
  // Custody's own bookkeeping: the renewals it schedules are custody's routes, not this tool's.
  routes: [],
  call: (ctx, { activationId, custodyMinutes }) => {
    const extended = ctx.custody.extendActivation(activationId, custodyMinutes);
    return Promise.resolve({
      changed: extended.changed,
      activationId: extended.activationId,
      credentialCount: extended.credentialCount,
      ...custodyView(extended),
    });
  },
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
      // Answered after the host cancelled: what it settled is erased all the same.
      const settle = (next: Activation) => {
        const stillLeased = new Set(
          next.endpoints.filter((e) => e.state === "leased" && e.leaseId).map((e) => e.leaseId!),
        );
        ctx.custody.settleActivationLeases(activationId, stillLeased);
      };
      const next = await mutate(ctx, SETTLE_ROUTES[action], { activationId }, {
        leaseId,
        leaseToken: token,
        ...body,
      }, { capabilities, whenLate: settle });
      settle(next);
      return { activation: next };
    },
  );
}

export const activationConfirmEndpoint = defineTool({
  name: "portreeve_activation_confirm_endpoint",
  title: "Confirm an endpoint",
  kind: "mutation",
  capabilities: CAPS,
  description: "Confirm an endpoint: process by rootPid, docker by containerId.",
  input: z.strictObject({
    activationId: uuid(),
    credentialHandle: handle(),
    bindingKind: z.enum(["process", "docker"]),
    rootPid: pid().optional(),
    containerId: z.string().regex(/^[a-f0-9]{12,64}$/).optional(),
  }),
  output: settled,
  routes: [SETTLE_ROUTES.confirm],
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
    const caps = bindingKind === "docker" ? DOCKER_CAPS : CAPS;
    return settleEndpoint(ctx, "confirm", activationId, credentialHandle, evidence, caps);
  },
});

export const activationSkipEndpoint = defineTool({
  name: "portreeve_activation_skip_endpoint",
  title: "Skip an endpoint",
  kind: "mutation",
  capabilities: CAPS,
  description: "Skip an optional endpoint; releases its lease.",
  input: z.strictObject({ activationId: uuid(), credentialHandle: handle() }),
  output: settled,
  routes: [SETTLE_ROUTES.skip],
  call: (ctx, { activationId, credentialHandle }) =>
    settleEndpoint(ctx, "skip", activationId, credentialHandle, {}),
});

export const activationAbandonEndpoint = defineTool({
  name: "portreeve_activation_abandon_endpoint",
  title: "Abandon an endpoint",
  kind: "mutation",
  capabilities: CAPS,
  description: "Mark an endpoint failed; a required one fails the activation.",
  input: z.strictObject({
    activationId: uuid(),
    credentialHandle: handle(),
    reason: abandonReason(),
  }),
  output: settled,
  routes: [SETTLE_ROUTES.abandon],
  call: (ctx, { activationId, credentialHandle, reason }) =>
    settleEndpoint(ctx, "abandon", activationId, credentialHandle, { reason }),
});

const reconciled = z.object({ changed: z.boolean(), activation, providers: z.array(provider) });
const reconcileRoute = post(
  `${A}/reconcile`,
  reconciled,
  coordinates("marks an activation lost and releases its runs when all providers are gone"),
  ACTIVATION_SETTLED,
);

export const activationReconcile = defineTool({
  name: "portreeve_activation_reconcile",
  title: "Reconcile an activation",
  kind: "mutation",
  capabilities: CAPS,
  description: "Re-check providers; all gone means lost.",
  input: z.strictObject({ activationId: uuid() }),
  output: reconciled,
  routes: [reconcileRoute],
  call: (ctx, { activationId }) => mutate(ctx, reconcileRoute, { activationId }),
});

const endRoute = post(
  `${A}/end`,
  settled,
  coordinates("ends an activation whose processes are gone; signals nothing"),
  ACTIVATION_SETTLED,
);

export const activationEnd = defineTool({
  name: "portreeve_activation_end",
  title: "End an activation",
  kind: "mutation",
  capabilities: CAPS,
  description: "End an activation after its processes stopped.",
  input: z.strictObject({ activationId: uuid() }),
  output: settled,
  routes: [endRoute],
  async call(ctx, { activationId }) {
    const data = await mutate(ctx, endRoute, { activationId });
    ctx.custody.settleActivationLeases(activationId, new Set());
    return data;
  },
});
