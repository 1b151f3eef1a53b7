/**
 * Launcher coordination: a renewable session a project launcher holds while it starts,
 * stops or checks a stack. The bridge never runs commands; it only keeps the daemon informed.
 */
import { z } from "zod";
import { defineTool } from "../define.ts";
import {
  custodyTimes,
  handle,
  renewalFailure,
  revision,
  timeInput,
  timestamp,
  uuid,
} from "../shapes.ts";
import { launcherOperation } from "../records.ts";
import { mutate, read, stillWanted } from "../daemon_calls.ts";
import { custodyView, epoch, failureView } from "../../results/custody_views.ts";
import { coordinates, get, post } from "../routes.ts";
import { Capability } from "../../daemon/capabilities.ts";
import { invalidInput } from "../../shared/errors.ts";
import { CredentialUnavailableError } from "../../custody/mod.ts";
import { heldWithOtherArguments } from "../memory.ts";
import { RENEWAL_ROUTES } from "../renewers.ts";

const CAPS = [Capability.launcherOperations];
type Operation = z.output<typeof launcherOperation>;

const L = "/v1/launcher-operations/{operationId}";
const operationRoute = get(L, launcherOperation);
const completeRoute = post(
  `${L}/complete`,
  z.looseObject({ operation: launcherOperation }),
  // The daemon keeps the newest 20 finished operations per stack: its own log's retention.
  coordinates("records how a launcher operation ended"),
  {
    tool: "portreeve_launcher_operation_get",
    how: "with this operationId, to see whether it is terminal",
  },
);

const beginRoute = post(
  "/v1/launcher-operations/begin",
  z.looseObject({
    operation: launcherOperation,
    credential: z.string(),
    renewAfterMilliseconds: z.int(),
  }),
  // A start, stop or restart records the launcher's intent; the daemon runs and signals nothing.
  coordinates("records a launcher operation; the daemon runs and signals nothing"),
  {
    tool: "portreeve_launcher_operations_list",
    how: "for this stack, to see whether the operation began",
  },
  {
    what: "the operation is completed as cancelled, its credential never held",
    routes: [completeRoute],
    async undo(began, send) {
      await send(completeRoute, {
        params: { operationId: began.operation.id },
        // Ended before its launcher learned of it: cancelled, nothing observed.
        body: {
          credential: began.credential,
          completion: completion.parse({ outcome: "cancelled" }),
        },
      });
      return `launcher operation ${began.operation.id} completed as cancelled`;
    },
  },
);

const heldOutput = {
  changed: z.boolean(),
  operationId: uuid(),
  operation: launcherOperation,
  renewAfterMilliseconds: z.int(),
  operationDeadlineAt: timestamp(),
  credentialHandle: handle(),
  ...custodyTimes,
};

export const launcherOperationBegin = defineTool({
  name: "portreeve_launcher_operation_begin",
  title: "Begin launcher operation",
  kind: "mutation",
  capabilities: CAPS,
  description: "Announce a launcher run. callerOperationId: your UUID; launcherRevision: 64 hex.",
  input: z.strictObject({
    stackId: uuid(),
    operation: z.enum(["start", "stop", "restart", "status"]),
    executionMode: z.enum(["finite", "attached"]).default("finite"),
    launcherRevision: revision(),
    callerOperationId: uuid(),
    generationId: uuid().nullable().default(null),
  }),
  output: z.object(heldOutput),
  routes: [operationRoute, beginRoute, completeRoute],
  async call(ctx, input) {
    if (input.executionMode === "attached" && input.operation !== "start") {
      throw invalidInput("executionMode attached is only allowed with operation start.", {
        field: "executionMode",
        reason: "attached_operation_invalid",
      });
    }
    const key = `launcher:${input.stackId}:${input.callerOperationId}`;
    return await ctx.memory.target(key, input, {
      held: (operationId: string) => ctx.custody.heldLauncher(operationId) !== undefined,
      async replay(operationId: string) {
        const operation = await read(ctx, operationRoute, { operationId });
        const held = ctx.custody.heldLauncher(operationId);
        if (!held) throw new CredentialUnavailableError();
        return heldView(false, operation, held);
      },
      async start() {
        const data = await mutate(ctx, beginRoute, {}, input);
        const kept = ctx.custody.holdLauncher({
          operationId: data.operation.id,
          credential: data.credential,
          deadlineAt: epoch(data.operation.deadlineAt),
          renewAfterMilliseconds: data.renewAfterMilliseconds,
        });
        stillWanted(ctx, beginRoute, data, () => ctx.custody.settleLauncher(data.operation.id));
        return { result: heldView(true, data.operation, kept), record: data.operation.id };
      },
      conflict: (operationId: string) =>
        heldWithOtherArguments(
          "operation",
          `launcher operation ${operationId} for this callerOperationId`,
          { operationId },
        ),
    });
  },
});

function heldView(
  changed: boolean,
  operation: Operation,
  held: {
    handle: string;
    renewAfterMilliseconds: number;
    custodyExpiresAt: number;
    maximumCustodyExpiresAt: number;
  },
) {
  return {
    changed,
    operationId: operation.id,
    operation,
    renewAfterMilliseconds: held.renewAfterMilliseconds,
    operationDeadlineAt: operation.deadlineAt,
    credentialHandle: held.handle,
    ...custodyView(held),
  };
}

export const launcherOperationRenew = defineTool({
  name: "portreeve_launcher_operation_renew",
  title: "Renew launcher operation",
  kind: "mutation",
  capabilities: CAPS,
  description: "Renew a held operation; custodyMinutes (10–60) extends it.",
  input: z.strictObject({
    operationId: uuid(),
    credentialHandle: handle(),
    custodyMinutes: z.int().min(10).max(60).optional(),
  }),
  output: z.object({ ...heldOutput, custodyChanged: z.boolean(), renewalFailure }),
  // Custody sends the heartbeat, on the renewers' route.
  routes: [RENEWAL_ROUTES.launcher],
  async call(ctx, { operationId, credentialHandle, custodyMinutes }) {
    const { renewalFailure } = ctx.custody.useLauncher(operationId, credentialHandle);
    const beat = await ctx.custody.renewLauncherNow(operationId, credentialHandle, custodyMinutes);
    return {
      ...heldView(true, beat.renewal.operation, beat),
      custodyChanged: beat.custodyChanged,
      ...failureView(renewalFailure),
    };
  },
});

/** A short machine code such as a step or reason name. */
const code = () => z.string().min(1).max(64).regex(/^[a-z0-9_-]+$/);

const evidence = z.strictObject({
  classification: z.enum([
    "stopped",
    "partial",
    "fully-observed",
    "verified",
    "conflicting",
    "uncertain",
  ]),
  source: z.enum(["daemon", "local", "cached", "unavailable"]),
  observedAt: timeInput().nullable(),
  generationId: uuid().nullable(),
  activationId: uuid().nullable(),
  listenerCount: z.int().min(0).max(10000),
  reasonCodes: z.array(code()).max(32),
});

/** How a launcher operation ended; every field but `outcome` may be left out. */
const completion = z.strictObject({
  outcome: z.enum(["succeeded", "failed", "cancelled", "timed-out"]),
  exitCode: z.int().min(0).max(255).nullable().default(null),
  signal: z.string().min(4).max(32).regex(/^SIG[A-Z0-9]+$/).nullable().default(null),
  degraded: z.boolean().default(false),
  beforeEvidence: evidence.nullable().default(null),
  afterEvidence: evidence.nullable().default(null),
  failure: z.strictObject({ step: code(), code: code(), message: z.string().min(1).max(1024) })
    .nullable()
    .default(null),
  integration: z.strictObject({
    mode: z.enum(["command-only", "verified-activation"]),
    verified: z.boolean(),
    upgradeSuggested: z.boolean(),
    generationId: uuid().nullable(),
    activationId: uuid().nullable(),
  }).nullable().default(null),
});

export const launcherOperationComplete = defineTool({
  name: "portreeve_launcher_operation_complete",
  title: "Complete launcher operation",
  kind: "mutation",
  capabilities: CAPS,
  description: "Record how it ended (exitCode 0–255, signal e.g. SIGTERM).",
  input: z.strictObject({
    operationId: uuid(),
    credentialHandle: handle(),
    completion,
  }),
  output: z.object({ changed: z.boolean(), operation: launcherOperation }),
  routes: [completeRoute],
  call: (ctx, { operationId, credentialHandle, completion }) =>
    ctx.memory.once(
      `launcher-complete:${credentialHandle}`,
      { operationId, completion },
      async () => {
        const { credential } = ctx.custody.useLauncher(operationId, credentialHandle);
        // Answered after the host cancelled: the operation is settled all the same.
        const settle = () => ctx.custody.settleLauncher(operationId);
        const data = await mutate(ctx, completeRoute, { operationId }, { credential, completion }, {
          whenLate: settle,
        });
        settle();
        return { operation: data.operation };
      },
    ),
});
