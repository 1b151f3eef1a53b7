/**
 * Standalone leases: acquire a port, bind it, confirm with the listener's root PID (or
 * abandon), release the run later. Raw lease tokens stay in custody; the model gets handles.
 */
import { z } from "zod";
import { defineTool } from "../define.ts";
import {
  abandonReason,
  ack,
  custodyTimes,
  handle,
  pid,
  port,
  renewalFailure,
  timestamp,
  uuid,
} from "../shapes.ts";
import { epoch, id, iso, mutate } from "../daemon_calls.ts";
import { custodyView, failureView } from "../custody_views.ts";
import { invalidInput } from "../../errors.ts";
import { heldWithOtherArguments } from "../memory.ts";

const CAPS = ["two-phase-allocation-v1"];
const name = () => z.string().trim().min(1).max(128);

interface Acquired {
  claimId: string;
  leaseId: string;
  port: number;
  reusedAssignment: boolean;
}

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
    "Reserve a port for one endpoint, bind it, then lease_confirm with the root PID (or lease_abandon). A repeat returns the lease held. workspaceRoot: absolute, canonical.",
  input: z.strictObject({
    claim: z.strictObject({
      project: name(),
      workspaceRoot: z.string().min(1),
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
    const request = { claim: { ...claim, component, service: undefined }, allocation };
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
        const data = await mutate(ctx, "/v1/leases/acquire", request) as Acquired & {
          leaseToken: string;
          expiresAt: string;
        };
        const kept = ctx.custody.holdLease({
          leaseId: data.leaseId,
          token: data.leaseToken,
          expiresAt: epoch(data.expiresAt),
        });
        const acquired: Acquired = {
          claimId: data.claimId,
          leaseId: data.leaseId,
          port: data.port,
          reusedAssignment: data.reusedAssignment,
        };
        const result = {
          changed: true,
          ...acquired,
          leaseExpiresAt: data.expiresAt,
          credentialHandle: kept.handle,
          ...custodyView(kept),
        };
        return { result, record: acquired };
      },
      conflict: (previous: Acquired) =>
        heldWithOtherArguments(
          `the pending lease ${previous.leaseId} for this claim`,
          "to change its mode or port, abandon it (portreeve_lease_abandon with its credentialHandle) or confirm and release it first, then acquire again.",
          {
            leaseId: previous.leaseId,
            port: previous.port,
            credentialHandle: ctx.custody.heldLease(previous.leaseId)?.handle,
          },
        ),
    });
  },
  summary: (d) =>
    `${
      d.changed ? "Leased" : "Already holding"
    } port ${d.port} until ${d.leaseExpiresAt} (renewed while held, custody until ${d.custodyExpiresAt}); bind it, then confirm with credentialHandle.`,
});

const confirmOutput = z.object({
  changed: z.boolean(),
  claimId: uuid(),
  leaseId: uuid(),
  runId: uuid(),
  port: port(),
  confirmedAt: timestamp(),
});

export const leaseConfirm = defineTool({
  name: "portreeve_lease_confirm",
  title: "Confirm a port lease",
  kind: "mutation",
  capabilities: CAPS,
  description:
    "After your process listens on the leased port, prove it: the daemon checks every listener descends from rootPid, records a run and the credential is erased.",
  input: z.strictObject({ credentialHandle: handle(), rootPid: pid() }),
  output: confirmOutput,
  call: (ctx, { credentialHandle, rootPid }) =>
    ctx.memory.once(`lease-confirm:${credentialHandle}`, { rootPid }, async () => {
      const { leaseId, token } = ctx.custody.useLease(credentialHandle);
      const data = await mutate(ctx, `/v1/leases/${id(leaseId)}/confirm`, {
        leaseToken: token,
        rootPid,
      }) as Omit<
        z.input<typeof confirmOutput>,
        "changed"
      >;
      ctx.custody.settleLease(credentialHandle);
      return {
        claimId: data.claimId,
        leaseId: data.leaseId,
        runId: data.runId,
        port: data.port,
        confirmedAt: data.confirmedAt,
      };
    }),
  summary: (d) =>
    `${
      d.changed ? "Confirmed" : "Already confirmed"
    }: port ${d.port} runs as run ${d.runId}; release it with run_release when done.`,
});

export const leaseAbandon = defineTool({
  name: "portreeve_lease_abandon",
  title: "Abandon a port lease",
  kind: "mutation",
  capabilities: CAPS,
  description:
    "Give a held lease back when the process could not start (address-in-use marks a collision) and erase its credential.",
  input: z.strictObject({ credentialHandle: handle(), reason: abandonReason() }),
  output: ack,
  call: (ctx, { credentialHandle, reason }) =>
    ctx.memory.once(`lease-abandon:${credentialHandle}`, { reason }, async () => {
      const { leaseId, token } = ctx.custody.useLease(credentialHandle);
      const data = await mutate(ctx, `/v1/leases/${id(leaseId)}/abandon`, {
        leaseToken: token,
        reason,
      }) as z.input<
        typeof ack
      >;
      ctx.custody.settleLease(credentialHandle);
      return { at: data.at };
    }),
  summary: (d) =>
    d.changed
      ? `Lease abandoned at ${d.at}; its credential is erased.`
      : "Lease was already settled.",
});

export const runRelease = defineTool({
  name: "portreeve_run_release",
  title: "Release a run",
  kind: "mutation",
  capabilities: CAPS,
  description:
    "Mark a confirmed run released after its process stopped. Sticky claims keep their port. Safe to repeat.",
  input: z.strictObject({ runId: uuid() }),
  output: ack,
  call: async (ctx, { runId }) =>
    await mutate(ctx, `/v1/runs/${id(runId)}/release`) as z.input<typeof ack>,
  summary: (d) =>
    d.changed
      ? `Run released at ${d.at}.`
      : "Run was already released (or unknown); nothing changed.",
});
