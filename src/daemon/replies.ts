/**
 * The shape of every daemon reply the bridge uses (protocol §3–§5), checked in the client where
 * replies arrive, so no tool or custody code ever touches an unchecked value. Records are loose
 * (unknown keys pass through; tools' output schemas document the rest): these schemas check the
 * fields the bridge itself reads — ids it routes by, tokens custody keeps, deadlines it renews
 * by, the keys it sorts pages by and the evidence previews are explained from.
 */
import { z } from "zod";
import { invalidResponse } from "../errors.ts";

const text = () => z.string();
const id = () => z.string().min(1);
const int = () => z.int();
const time = () => z.iso.datetime({ offset: true });
const record = () => z.looseObject({});

export const healthReply = z.looseObject({
  softwareVersion: text(),
  protocol: z.looseObject({ minimum: int(), maximum: int() }),
  capabilities: z.array(text()),
  pid: int(),
  mode: text(),
});

const claimRef = z.looseObject({
  id: id(),
  identity: z.looseObject({
    project: text(),
    workspaceRoot: text(),
    component: text(),
    endpoint: text(),
  }),
});

const portEntry = z.looseObject({ port: int(), listeners: z.array(z.unknown()) });
const stackRef = z.looseObject({ id: id(), project: text(), stackRoot: text() });
const generationRecord = z.looseObject({
  id: id(),
  createdAt: time(),
  endpoints: z.array(record()),
});
const activationRecord = z.looseObject({
  id: id(),
  state: text(),
  endpoints: z.array(z.looseObject({ state: text(), leaseId: id().nullable() })),
});
const listedActivation = activationRecord.extend({ createdAt: time() });
const operationRecord = z.looseObject({ id: id(), deadlineAt: time() });
const listedOperation = operationRecord.extend({
  startedAt: time(),
  completedAt: time().nullable().optional(),
});
const renewedLease = z.looseObject({ expiresAt: time() });

function preview(observed: z.ZodType = record(), proposal: z.ZodType = record()) {
  return z.looseObject({
    receiptId: id(),
    action: text(),
    target: z.looseObject({ type: text(), id: text() }),
    proposal,
    observed,
    expiresAt: time(),
  });
}

const execution = z.looseObject({ changed: z.boolean(), replayed: z.boolean(), result: record() });

const stackSummary = z.looseObject({ project: text(), stackRoot: text() });

interface ReplyRoute {
  method: "GET" | "POST";
  /** The route as the protocol names it, e.g. `POST /v1/leases/{leaseId}/confirm`. */
  route: string;
  schema: z.ZodType;
}

/** `{x}` matches one path segment. */
function route(method: "GET" | "POST", path: string, schema: z.ZodType): ReplyRoute {
  return { method, route: `${method} ${path}`, schema };
}

const A = "/v1/stack-activations/{activationId}";
const L = "/v1/launcher-operations/{operationId}";

export const REPLY_ROUTES: readonly ReplyRoute[] = [
  route("GET", "/v1/health", healthReply),
  route("GET", "/v1/config", record()),
  route("GET", "/v1/ports", z.array(portEntry)),
  route("GET", "/v1/ports/{port}", portEntry),
  route("GET", "/v1/claims", z.array(claimRef)),
  route("GET", "/v1/claims/{claimId}", claimRef),
  route("GET", "/v1/stacks", z.array(stackRef)),
  route("GET", "/v1/stacks/{stackId}", stackRef),
  route("POST", "/v1/stacks/{stackId}/status", record()),
  route(
    "POST",
    "/v1/stacks/{stackId}/prepare",
    z.looseObject({
      reused: z.boolean(),
      generation: generationRecord,
    }),
  ),
  route("GET", "/v1/stacks/{stackId}/launcher-operations", z.array(listedOperation)),
  route("GET", "/v1/stack-document", record()),
  route("GET", "/v1/stack-generations", z.array(generationRecord)),
  route("GET", "/v1/stack-generations/{generationId}", generationRecord),
  route("GET", "/v1/stack-activations", z.array(listedActivation)),
  route("GET", A, activationRecord),
  route(
    "POST",
    "/v1/stack-activations/begin",
    z.looseObject({
      activation: activationRecord,
      leases: z.array(z.looseObject({
        leaseId: id(),
        leaseToken: text(),
        expiresAt: time(),
        component: text(),
        endpoint: text(),
        port: int(),
      })),
    }),
  ),
  route("POST", `${A}/confirm`, activationRecord),
  route("POST", `${A}/skip`, activationRecord),
  route("POST", `${A}/abandon`, activationRecord),
  route(
    "POST",
    `${A}/renew`,
    z.looseObject({
      leases: z.array(renewedLease.extend({ leaseId: id() })),
    }),
  ),
  route(
    "POST",
    `${A}/reconcile`,
    z.looseObject({
      changed: z.boolean(),
      activation: activationRecord,
      providers: z.array(record()),
    }),
  ),
  route("POST", `${A}/end`, z.looseObject({ changed: z.boolean(), activation: activationRecord })),
  route("POST", `${A}/resolve`, record()),
  route("POST", `${A}/snapshot`, record()),
  route(
    "GET",
    "/v1/history",
    z.looseObject({
      items: z.array(record()),
      page: z.looseObject({ nextCursor: text().nullable().optional() }).optional(),
    }),
  ),
  route(
    "POST",
    "/v1/leases/acquire",
    z.looseObject({
      claimId: id(),
      leaseId: id(),
      port: int(),
      reusedAssignment: z.boolean(),
      leaseToken: text(),
      expiresAt: time(),
    }),
  ),
  route(
    "POST",
    "/v1/leases/{leaseId}/confirm",
    z.looseObject({
      claimId: id(),
      leaseId: id(),
      runId: id(),
      port: int(),
      confirmedAt: time(),
    }),
  ),
  route("POST", "/v1/leases/{leaseId}/abandon", z.looseObject({ at: time() })),
  route("POST", "/v1/leases/{leaseId}/renew", renewedLease),
  route("POST", "/v1/runs/{runId}/release", record()),
  route(
    "POST",
    "/v1/launcher-operations/begin",
    z.looseObject({
      operation: operationRecord,
      credential: text(),
      renewAfterMilliseconds: int(),
    }),
  ),
  route("GET", L, operationRecord),
  route(
    "POST",
    `${L}/renew`,
    z.looseObject({
      operation: operationRecord,
      renewAfterMilliseconds: int(),
    }),
  ),
  route("POST", `${L}/complete`, z.looseObject({ operation: operationRecord })),
  route("POST", "/v1/actions/stack-definition/validate", record()),
  route(
    "POST",
    "/v1/actions/ports/{port}/reclaim/preview",
    preview(z.looseObject({
      port: int(),
      policy: text(),
      outcome: text(),
      reason: text().nullable().optional(),
      launcherAction: z.looseObject({ containerIds: z.array(text()).optional() }).nullable()
        .optional(),
      targets: z.array(z.looseObject({ pid: int(), command: text().nullable().optional() })),
    })),
  ),
  route("POST", "/v1/actions/ports/{port}/reclaim/execute", execution),
  route(
    "POST",
    "/v1/actions/claims/{claimId}/reassign/preview",
    preview(z.looseObject({ claim: claimRef })),
  ),
  route("POST", "/v1/actions/claims/{claimId}/reassign/execute", execution),
  route(
    "POST",
    "/v1/actions/claims/{claimId}/delete/preview",
    preview(z.looseObject({ claim: claimRef })),
  ),
  route("POST", "/v1/actions/claims/{claimId}/delete/execute", execution),
  route(
    "POST",
    "/v1/actions/claims/prune/preview",
    preview(z.looseObject({
      candidates: z.array(z.looseObject({ claim: claimRef })),
      skipped: z.array(z.looseObject({ claimId: text(), reason: text() })),
    })),
  ),
  route("POST", "/v1/actions/claims/prune/execute", execution),
  route(
    "POST",
    "/v1/actions/stacks/apply/preview",
    preview(z.looseObject({
      document: z.looseObject({ path: text(), kind: text(), issues: z.array(z.unknown()) }),
      stack: z.looseObject({
        changed: z.boolean(),
        existing: z.looseObject({ id: id() }).nullable(),
        revision: text(),
      }),
    })),
  ),
  route("POST", "/v1/actions/stacks/apply/execute", execution),
  route(
    "POST",
    "/v1/actions/stacks/prune/preview",
    preview(z.looseObject({
      candidates: z.array(z.looseObject({ stack: stackSummary, claimIds: z.array(z.unknown()) })),
      blocked: z.array(z.looseObject({ stack: stackSummary, reasons: z.array(text()) })),
    })),
  ),
  route("POST", "/v1/actions/stacks/prune/execute", execution),
  route(
    "POST",
    "/v1/actions/settings/preview",
    preview(z.looseObject({ current: record() }), z.looseObject({ updates: record() })),
  ),
  route("POST", "/v1/actions/settings/execute", execution),
];

interface Compiled extends ReplyRoute {
  pattern: RegExp;
}

const COMPILED: readonly Compiled[] = REPLY_ROUTES.map((r) => ({
  ...r,
  pattern: new RegExp(
    `^${r.route.slice(r.method.length + 1).replace(/\{[^}]+\}/g, "[^/]+")}$`,
  ),
}));

/** The route a request goes to, or undefined when the bridge has no schema for it. */
export function replyRouteOf(method: string, path: string): ReplyRoute | undefined {
  const bare = path.split("?")[0];
  return COMPILED.find((r) => r.method === method && r.pattern.test(bare));
}

/**
 * Checks `data` from a successful reply to `method path`. A route without a schema is a bridge
 * bug (every call the bridge makes is listed above), so it is refused rather than trusted.
 */
export function checkReply(method: string, path: string, data: unknown): unknown {
  const found = replyRouteOf(method, path);
  if (!found) {
    throw new Error(`no reply schema for ${method} ${path.split("?")[0]}; add it to replies.ts`);
  }
  const checked = found.schema.safeParse(data);
  if (checked.success) return data;
  const issues = checked.error.issues.slice(0, 10).map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issue.message,
  }));
  const first = issues[0];
  return fail(found.route, first ? `${first.path || "data"}: ${first.message}` : "", issues);
}

function fail(
  route: string,
  first: string,
  issues: { path: string; message: string }[],
): never {
  throw invalidResponse(`${route} answered data of the wrong shape${first ? `, ${first}` : ""}`, {
    route,
    issues,
  });
}
