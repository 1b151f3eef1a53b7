/**
 * Standalone leases: acquire a port, bind it, confirm with the listener's root PID (or
 * abandon), release the run later. Raw lease tokens stay in custody; the model gets handles.
 */
import { z } from "zod";
import { defineTool } from "../define.ts";
import {
  abandonReason,
  ack,
  boundedPath,
  custodyTimes,
  handle,
  pid,
  port,
  renewalFailure,
  timestamp,
  uuid,
} from "../shapes.ts";
import { mutate, stillWanted } from "../daemon_calls.ts";
import { custodyView, epoch, failureView, iso } from "../../results/custody_views.ts";
import { consequential, coordinates, dependsOn, post } from "../routes.ts";
import { Capability } from "../../daemon/capabilities.ts";
import { invalidInput } from "../../shared/errors.ts";
import { heldWithOtherArguments } from "../memory.ts";
import type { ToolContext } from "../context.ts";
import type { OutcomeCheck, Route } from "../routes.ts";
import { type AcquireBody, gateAcquire, inventoryLookup } from "./acquire_gate.ts";

const CAPS = [Capability.twoPhaseAllocation];
const name = () => z.string().trim().min(1).max(128);

/**
 * What the bridge keeps of an acquired lease, to answer a repeated acquire. The ids are the
 * daemon's to format (the output schema documents them as UUIDs).
 */
const acquired = z.looseObject({
  claimId: z.string().min(1),
  leaseId: z.string().min(1),
  port: port(),
  reusedAssignment: z.boolean(),
});
type Acquired = z.output<typeof acquired>;

/** Whether a confirm or an abandon took effect: the lease became a run, or went back. */
const LEASE_SETTLED: OutcomeCheck = {
  tool: "portreeve_port_inspect",
  how: "on the leased port, to see whether the lease became a run or was given back",
};

const abandonRoute = post(
  "/v1/leases/{leaseId}/abandon",
  z.looseObject({ at: timestamp() }),
  coordinates("gives a pending lease back"),
  LEASE_SETTLED,
);

/**
 * Under `graceful` or `force-after-grace` the daemon reclaims a claim that has a confirmed run
 * before leasing it: the run's processes are signalled. `never` refuses such a claim instead.
 */
export const acquireRoute = post(
  "/v1/leases/acquire",
  acquired.extend({ leaseToken: z.string(), expiresAt: timestamp() }),
  dependsOn("allocation.replacementPolicy", "never", {
    never: coordinates("leases a port (a claim with a confirmed run is refused)"),
    graceful: consequential(
      ["signals a process"],
      "reclaims a claim's confirmed run first: SIGTERM to its processes, then releases the run",
    ),
    "force-after-grace": consequential(
      ["signals a process"],
      "reclaims a claim's confirmed run first: SIGTERM, SIGKILL after the grace period, then releases the run",
    ),
  }),
  {
    tool: "portreeve_ports_list",
    how: "with this claim's project and component, to see whether a lease is pending",
  },
  {
    what: "the lease is abandoned as client-cancelled, its token never held",
    routes: [abandonRoute],
    async undo(granted, send) {
      await send(abandonRoute, {
        params: { leaseId: granted.leaseId },
        body: { leaseToken: granted.leaseToken, reason: "client-cancelled" },
      });
      return `lease ${granted.leaseId} (port ${granted.port}) abandoned as client-cancelled`;
    },
  },
);

const acquireOutput = z.object({
  changed: z.boolean(),
  claimId: uuid(),
  leaseId: uuid(),
  port: port(),
  leaseExpiresAt: timestamp(),
  reusedAssignment: z.boolean(),
  credentialHandle: handle(),
  ...custodyTimes,
  renewalFailure,
});

export const leaseAcquire = defineTool({
  name: "portreeve_lease_acquire",
  title: "Acquire a port lease",
  kind: "mutation",
  capabilities: CAPS,
  description:
    "Reserve a port, then lease_confirm or lease_abandon. workspaceRoot: absolute, canonical.",
  input: z.strictObject({
    claim: z.strictObject({
      project: name(),
      workspaceRoot: boundedPath(true),
      service: name().optional(),
      component: name().optional(),
      endpoint: name().default("default"),
      transport: z.literal("tcp").default("tcp"),
    }),
    allocation: z.strictObject({
      mode: z.enum(["sticky", "ephemeral"]).default("sticky"),
      preferredPort: port().optional(),
      exactPort: port().optional(),
      replacementPolicy: z.enum(["never", "graceful", "force-after-grace"]).default("never"),
    }).default({ mode: "sticky", replacementPolicy: "never" }),
  }),
  output: acquireOutput,
  routes: [acquireRoute, inventoryLookup, abandonRoute],
  async call(ctx, { claim, allocation }) {
    if (!claim.workspaceRoot.startsWith("/")) {
      throw invalidInput(
        "claim.workspaceRoot must be an absolute path; the bridge does not resolve relative paths.",
      );
    }
    const component = claim.component ?? claim.service;
    if (!component) throw invalidInput("claim needs `component` (or its legacy alias `service`).");
    if (claim.service && claim.component && claim.service !== claim.component) {
      throw invalidInput("claim.service and claim.component must be equal when both are given.");
    }
    if (allocation.preferredPort !== undefined && allocation.exactPort !== undefined) {
      throw invalidInput(
        "allocation.preferredPort and allocation.exactPort are mutually exclusive.",
      );
    }
    const identity = JSON.stringify([
      claim.project,
      claim.workspaceRoot,
      component,
      claim.endpoint,
    ]);
    // `service` is only an alias of `component`: spelling it either way is the same request.
    const request: AcquireBody = { claim: { ...claim, component, service: undefined }, allocation };
    return await ctx.memory.target(`acquire:${identity}`, request, {
      held: (previous: Acquired) => ctx.custody.heldLease(previous.leaseId) !== undefined,
      replay(previous: Acquired) {
        const held = ctx.custody.heldLease(previous.leaseId)!;
        const use = ctx.custody.useLease(held.handle);
        return {
          changed: false,
          ...previous,
          leaseExpiresAt: iso(held.expiresAt),
          credentialHandle: held.handle,
          ...custodyView(held),
          ...failureView(use.renewalFailure),
        };
      },
      async start() {
        // A reclaim policy may signal processes: the person approves it first (or it is refused).
        const { body, approval } = await gateAcquire(ctx, acquireRoute, request);
        const sentAt = ctx.custody.now();
        const data = await mutate(ctx, acquireRoute, {}, body, { approval });
        // Never reported as held once its expiry has passed, or falls before a renewal could
        // land: renewed at once first, or `portreeve_lease_lapsed` (custody's arrival rule).
        const kept = await ctx.custody.admitLease({
          leaseId: data.leaseId,
          token: data.leaseToken,
          expiresAt: epoch(data.expiresAt),
        }, sentAt);
        stillWanted(ctx, acquireRoute, data, () => ctx.custody.settleLease(kept.handle));
        const acquired: Acquired = {
          claimId: data.claimId,
          leaseId: data.leaseId,
          port: data.port,
          reusedAssignment: data.reusedAssignment,
        };
        const result = {
          changed: true,
          ...acquired,
          leaseExpiresAt: iso(kept.expiresAt),
          credentialHandle: kept.handle,
          ...custodyView(kept),
        };
        return { result, record: acquired };
      },
      conflict: (previous: Acquired) =>
        heldWithOtherArguments(
          "lease",
          `the pending lease ${previous.leaseId} for this claim`,
          {
            leaseId: previous.leaseId,
            port: previous.port,
            credentialHandle: ctx.custody.heldLease(previous.leaseId)?.handle,
          },
        ),
    });
  },
});

const confirmed = z.looseObject({
  claimId: uuid(),
  leaseId: uuid(),
  runId: uuid(),
  port: port(),
  confirmedAt: timestamp(),
});
const confirmOutput = z.object({ changed: z.boolean(), ...confirmed.shape });

const confirmRoute = post(
  "/v1/leases/{leaseId}/confirm",
  confirmed,
  coordinates("records a lease's run"),
  LEASE_SETTLED,
);
/**
 * Confirm and abandon alike: use the handle's credential once, send it to the lease's route,
 * erase the credential once the daemon settled the lease. A repeat returns the first answer.
 */
function settleLease<Reply extends z.ZodType, Result extends object>(
  ctx: ToolContext,
  action: "confirm" | "abandon",
  route: Route<Reply>,
  credentialHandle: string,
  body: Record<string, unknown>,
  keep: (reply: z.output<Reply>) => Result,
) {
  return ctx.memory.once(`lease-${action}:${credentialHandle}`, body, async () => {
    const { leaseId, token } = ctx.custody.useLease(credentialHandle);
    // Answered after the host cancelled: the lease is settled all the same.
    const settle = () => ctx.custody.settleLease(credentialHandle);
    const data = await mutate(ctx, route, { leaseId }, { leaseToken: token, ...body }, {
      whenLate: settle,
    });
    settle();
    return keep(data);
  });
}

export const leaseConfirm = defineTool({
  name: "portreeve_lease_confirm",
  title: "Confirm a port lease",
  kind: "mutation",
  capabilities: CAPS,
  description: "Confirm your listener by rootPid, its ancestor; erases the credential.",
  input: z.strictObject({ credentialHandle: handle(), rootPid: pid() }),
  output: confirmOutput,
  routes: [confirmRoute],
  call: (ctx, { credentialHandle, rootPid }) =>
    settleLease(ctx, "confirm", confirmRoute, credentialHandle, { rootPid }, (data) => ({
      claimId: data.claimId,
      leaseId: data.leaseId,
      runId: data.runId,
      port: data.port,
      confirmedAt: data.confirmedAt,
    })),
});

export const leaseAbandon = defineTool({
  name: "portreeve_lease_abandon",
  title: "Abandon a port lease",
  kind: "mutation",
  capabilities: CAPS,
  description: "Give back a lease whose process failed to start.",
  input: z.strictObject({ credentialHandle: handle(), reason: abandonReason() }),
  output: ack,
  routes: [abandonRoute],
  call: (ctx, { credentialHandle, reason }) =>
    settleLease(ctx, "abandon", abandonRoute, credentialHandle, { reason }, (data) => ({
      at: data.at,
    })),
});

const releaseRoute = post(
  "/v1/runs/{runId}/release",
  ack,
  coordinates("marks a run released; signals nothing"),
  {
    tool: "portreeve_ports_list",
    how: "to see whether the run is still listed (releasing again is safe)",
  },
);

export const runRelease = defineTool({
  name: "portreeve_run_release",
  title: "Release a run",
  kind: "mutation",
  capabilities: CAPS,
  description: "Release a run whose process stopped.",
  input: z.strictObject({ runId: uuid() }),
  output: ack,
  routes: [releaseRoute],
  call: (ctx, { runId }) => mutate(ctx, releaseRoute, { runId }),
});
