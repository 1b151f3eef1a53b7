// Launcher operations: renewable per-stack coordination sessions with one-time credentials.
import { z } from "zod";
import type { Ctx } from "../core.ts";
import { fail, parseWith } from "../errors.ts";
import { get, post, type Route } from "../router.ts";
import { hex64Schema, tokenSchema, tsSchema, uuidSchema } from "../schemas.ts";
import type { LauncherEntry, LauncherRecord } from "../state.ts";
import { canonicalJson, iso, newSecret, secretMatches, sha256Hex, uuid } from "../util.ts";
import { launcherView } from "../views.ts";
import { stackOr404 } from "./stacks.ts";

const DEADLINE_MS = 30_000;
const RENEW_AFTER_MS = 10_000;
const RETAINED_TERMINAL = 20;

const code64 = z.string().min(1).max(64).regex(/^[a-z0-9_-]+$/);

const evidenceSchema = z.strictObject({
  classification: z.enum([
    "stopped",
    "partial",
    "fully-observed",
    "verified",
    "conflicting",
    "uncertain",
  ]),
  source: z.enum(["daemon", "local", "cached", "unavailable"]),
  observedAt: tsSchema.nullable(),
  generationId: uuidSchema.nullable(),
  activationId: uuidSchema.nullable(),
  listenerCount: z.number().int().min(0).max(10_000),
  reasonCodes: z.array(code64).max(32),
});

const integrationSchema = z.strictObject({
  mode: z.enum(["command-only", "verified-activation"]),
  verified: z.boolean(),
  upgradeSuggested: z.boolean(),
  generationId: uuidSchema.nullable(),
  activationId: uuidSchema.nullable(),
}).refine((i) => i.verified === (i.generationId !== null && i.activationId !== null), {
  message: "verified must be true exactly when both generationId and activationId are set",
}).refine((i) => !i.upgradeSuggested || (i.mode === "command-only" && i.verified), {
  message: "upgradeSuggested needs a verified command-only integration",
});

const completionSchema = z.strictObject({
  outcome: z.enum(["succeeded", "failed", "cancelled", "timed-out"]),
  exitCode: z.number().int().min(0).max(255).nullable().default(null),
  signal: z.string().min(4).max(32).regex(/^SIG[A-Z0-9]+$/).nullable().default(null),
  degraded: z.boolean().default(false),
  beforeEvidence: evidenceSchema.nullable().default(null),
  afterEvidence: evidenceSchema.nullable().default(null),
  failure: z.strictObject({ step: code64, code: code64, message: z.string().min(1).max(1024) })
    .nullable().default(null),
  integration: integrationSchema.nullable().default(null),
});

/** Turns overdue active operations into `lost` records and applies retention. */
function expireLauncherOps(ctx: Ctx): void {
  for (const { record } of ctx.state.launcher.values()) {
    if (record.state !== "active" || record.deadlineAt > ctx.lapseAt) continue;
    record.state = "terminal";
    record.outcome = "lost";
    record.completedAt = record.deadlineAt;
    record.durationMilliseconds = Date.parse(record.deadlineAt) - Date.parse(record.startedAt);
    record.failure = {
      step: "coordination",
      code: "client_lost",
      message: "The launcher stopped renewing before its deadline.",
    };
    ctx.event(
      "launcher.operation.lost",
      "launcher-operation",
      record.id,
      launcherView(record),
      true,
    );
  }
  prune(ctx);
}

function prune(ctx: Ctx): void {
  const byStack = new Map<string, LauncherRecord[]>();
  for (const { record } of ctx.state.launcher.values()) {
    if (record.state !== "terminal") continue;
    byStack.set(record.stackId, [...(byStack.get(record.stackId) ?? []), record]);
  }
  for (const records of byStack.values()) {
    records.sort((a, b) => (b.completedAt ?? "").localeCompare(a.completedAt ?? ""));
    for (const old of records.slice(RETAINED_TERMINAL)) ctx.state.launcher.delete(old.id);
  }
}

const beginSchema = z.strictObject({
  client: z.unknown(),
  stackId: uuidSchema,
  operation: z.enum(["start", "stop", "restart", "status"]),
  executionMode: z.enum(["finite", "attached"]).default("finite"),
  launcherRevision: hex64Schema,
  callerOperationId: uuidSchema,
  generationId: uuidSchema.nullable().default(null),
}).superRefine((b, issues) => {
  // A schema issue upstream (details.issues), not a domain error with a reason.
  if (b.executionMode === "attached" && b.operation !== "start") {
    issues.addIssue({
      code: "custom",
      path: ["executionMode"],
      message: "attached execution is available only for Start",
    });
  }
});

function begin(ctx: Ctx): unknown {
  const body = parseWith(beginSchema, ctx.body);
  const stack = stackOr404(ctx, body.stackId);
  if (body.generationId !== null) {
    const g = ctx.state.generations.get(body.generationId);
    if (!g) throw fail.notFound(`Generation ${body.generationId} was not found.`);
    if (g.stackId !== stack.id) {
      throw fail.invalid(`Generation ${g.id} belongs to another stack.`, {
        generationId: g.id,
        reason: "generation_stack_mismatch",
      });
    }
  }
  expireLauncherOps(ctx);
  const records = [...ctx.state.launcher.values()].map((e) => e.record).filter((r) =>
    r.stackId === stack.id
  );
  const existing = records.find((r) => r.callerOperationId === body.callerOperationId);
  if (existing) {
    throw fail.conflict("This callerOperationId was already used for the stack.", {
      stackId: stack.id,
      operationId: existing.id,
      reason: "caller_operation_exists",
    });
  }
  const active = records.filter((r) => r.state === "active");
  const companionAllowed = active.length === 1 && active[0].operation === "start" &&
    active[0].executionMode === "attached" && body.executionMode === "finite" &&
    (body.operation === "status" || body.operation === "stop");
  if (active.length > 0 && !companionAllowed) {
    throw fail.conflict(`Stack ${stack.id} already has an active launcher operation.`, {
      stackId: stack.id,
      activeOperations: active.map((r) => ({
        id: r.id,
        operation: r.operation,
        executionMode: r.executionMode,
        deadlineAt: r.deadlineAt,
      })),
      requestedOperation: body.operation,
      requestedExecutionMode: body.executionMode,
      reason: "launcher_operation_active",
    });
  }
  const credential = newSecret();
  const record: LauncherRecord = {
    id: uuid(),
    stackId: stack.id,
    stackRoot: stack.stackRoot,
    operation: body.operation,
    executionMode: body.executionMode,
    launcherRevision: body.launcherRevision,
    callerOperationId: body.callerOperationId,
    generationId: body.generationId,
    state: "active",
    outcome: null,
    deadlineAt: iso(ctx.now + DEADLINE_MS),
    startedAt: ctx.at,
    renewedAt: ctx.at,
    completedAt: null,
    durationMilliseconds: null,
    exitCode: null,
    signal: null,
    degraded: false,
    beforeEvidence: null,
    afterEvidence: null,
    failure: null,
    integration: null,
  };
  ctx.state.launcher.set(record.id, { record, credentialHash: sha256Hex(credential) });
  ctx.event("launcher.operation.began", "launcher-operation", record.id, launcherView(record));
  return { operation: launcherView(record), credential, renewAfterMilliseconds: RENEW_AFTER_MS };
}

function entryOr404(ctx: Ctx): LauncherEntry {
  const entry = ctx.state.launcher.get(ctx.params.operationId);
  if (!entry) {
    throw fail.notFound(`Launcher operation ${ctx.params.operationId} was not found.`, {
      operationId: ctx.params.operationId,
    });
  }
  return entry;
}

function checkCredential(entry: LauncherEntry, credential: string): void {
  if (!secretMatches(credential, entry.credentialHash)) {
    throw fail.badCredential("The operation credential does not match.", {
      operationId: entry.record.id,
    });
  }
}

/**
 * What renew and complete start with: the body parsed, expired operations swept, the operation
 * found and its credential checked.
 */
function heldOperation<S extends z.ZodType<{ credential: string }>>(ctx: Ctx, schema: S) {
  const body = parseWith(schema, ctx.body);
  expireLauncherOps(ctx);
  const entry = entryOr404(ctx);
  checkCredential(entry, body.credential);
  return { body, record: entry.record };
}

const renewSchema = z.strictObject({ client: z.unknown(), credential: tokenSchema });

function renew(ctx: Ctx): unknown {
  const { record } = heldOperation(ctx, renewSchema);
  if (record.state !== "active") {
    throw fail.conflict(`Launcher operation ${record.id} has already finished.`, {
      operationId: record.id,
      reason: "launcher_operation_terminal",
    });
  }
  record.deadlineAt = iso(ctx.now + DEADLINE_MS);
  record.renewedAt = ctx.at;
  return { operation: launcherView(record), renewAfterMilliseconds: RENEW_AFTER_MS };
}

const completeSchema = z.strictObject({
  client: z.unknown(),
  credential: tokenSchema,
  completion: completionSchema,
});

function complete(ctx: Ctx): unknown {
  const { body, record } = heldOperation(ctx, completeSchema);
  const c = body.completion;
  if (record.state === "terminal") {
    const same = record.outcome !== "lost" && canonicalJson({
          outcome: record.outcome,
          exitCode: record.exitCode,
          signal: record.signal,
          degraded: record.degraded,
          beforeEvidence: record.beforeEvidence,
          afterEvidence: record.afterEvidence,
          failure: record.failure,
          integration: record.integration,
        }) === canonicalJson(c);
    if (!same) {
      throw fail.conflict(`Launcher operation ${record.id} was completed differently.`, {
        operationId: record.id,
        reason: "launcher_completion_mismatch",
      });
    }
    return { changed: false, operation: launcherView(record) };
  }
  Object.assign(record, {
    state: "terminal",
    outcome: c.outcome,
    completedAt: ctx.at,
    durationMilliseconds: Math.max(0, ctx.now - Date.parse(record.startedAt)),
    exitCode: c.exitCode,
    signal: c.signal,
    degraded: c.degraded,
    beforeEvidence: c.beforeEvidence,
    afterEvidence: c.afterEvidence,
    failure: c.failure,
    integration: c.integration,
  });
  ctx.event("launcher.operation.completed", "launcher-operation", record.id, launcherView(record));
  prune(ctx);
  return { changed: true, operation: launcherView(record) };
}

function getOne(ctx: Ctx): unknown {
  expireLauncherOps(ctx);
  return launcherView(entryOr404(ctx).record);
}

const listQuery = z.object({
  limit: z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(1).max(20))
    .optional(),
});

function list(ctx: Ctx): unknown {
  const q = parseWith(listQuery, Object.fromEntries(ctx.query));
  const stack = stackOr404(ctx, ctx.params.stackId);
  expireLauncherOps(ctx);
  const key = (r: LauncherRecord) => r.completedAt ?? r.startedAt;
  return [...ctx.state.launcher.values()].map((e) => e.record).filter((r) => r.stackId === stack.id)
    .sort((a, b) => key(b).localeCompare(key(a))).slice(0, q.limit ?? 20).map(launcherView);
}

export const launcherRoutes: Route[] = [
  post("/v1/launcher-operations/begin", begin, beginSchema),
  get("/v1/launcher-operations/:operationId", getOne),
  post("/v1/launcher-operations/:operationId/renew", renew, renewSchema),
  post("/v1/launcher-operations/:operationId/complete", complete, completeSchema),
  get("/v1/stacks/:stackId/launcher-operations", list),
];
