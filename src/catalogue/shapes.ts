/**
 * Shapes shared by many tools, defined once. Inputs reuse the anchor's limits and bound every
 * string, list and map (INPUT_BOUNDS); outputs type the fields agents act on and keep rare
 * nested detail loose.
 */
import { z } from "zod";
import { INPUT_BOUNDS } from "../shared/input_bounds.ts";

// ── Input bounds ──────────────────────────────────────────────────────────────────────────
const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

/** A string of at most `max` characters. */
export const bounded = (max: number) => z.string().max(max);

/** A name as the protocol allows it (1–128 characters). */
export const name128 = () => z.string().min(1).max(INPUT_BOUNDS.name.max);

/** An exact-match filter on a name: a longer one could match nothing. */
export const nameFilter = () => bounded(INPUT_BOUNDS.name.max);

/**
 * A map from names to values, bounded in entries (`maxProperties` in the advertised schema)
 * and in key length.
 */
export function boundedRecord<V extends z.ZodType>(
  value: V,
  max: number = INPUT_BOUNDS.stackEntries.max,
) {
  return z.record(bounded(INPUT_BOUNDS.name.max), value)
    .refine((map) => Object.keys(map).length <= max, { message: `at most ${max} entries` })
    .meta({ maxProperties: max });
}

/** A time the caller sends: ISO 8601 with offset, bounded in length. */
export const timeInput = () => z.iso.datetime({ offset: true }).max(INPUT_BOUNDS.time.max);

// ── Scalars ──────────────────────────────────────────────────────────────────────────────
export const uuid = () => z.uuid();
export const port = () => z.int().min(1).max(65535);
export const timestamp = () => z.iso.datetime({ offset: true });
export const revision = () => z.string().regex(/^[a-f0-9]{64}$/);
export const handle = () => z.string().regex(/^[A-Za-z0-9_-]{43}$/);
export const pid = () => z.int().positive();
const loose = () => z.record(z.string(), z.unknown());
/**
 * A part the output schema declares in full (hosts that show output schemas type a model's
 * programs by them) but the bridge does not need: it never fails a call. The daemon's record
 * is kept as sent either way; the bridge checks only what it reads.
 */
export const declared = <T extends z.ZodType>(schema: T) => schema.catch(undefined as never);
/** A prune's age bound: at most ten years, in milliseconds. */
export const olderThanMilliseconds = () => z.int().min(0).max(315_576_000_000);

// ── Inputs for collections ────────────────────────────────────────────────────────────────
const PAGE_LIMIT_DEFAULT = 50;
const PAGE_LIMIT_MAX = 200;

export const pageInput = {
  limit: z.int().min(1).max(PAGE_LIMIT_MAX).default(PAGE_LIMIT_DEFAULT),
  afterCursor: z.string().min(1).max(INPUT_BOUNDS.cursor.max).optional(),
};

/** `{items, page:{itemCount, nextCursor?}}`: nextCursor is omitted on the last page. */
export function page<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    page: z.object({ itemCount: z.int(), nextCursor: z.string().optional() }),
  });
}

// ── Daemon records ────────────────────────────────────────────────────────────────────────
export const health = z.object({
  softwareVersion: z.string(),
  protocol: z.object({ minimum: z.int(), maximum: z.int() }),
  capabilities: z.array(z.string()),
  pid: z.int(),
  mode: z.string(),
});

export const settings = z.object({
  automaticPortRanges: z.array(z.object({ start: z.int(), end: z.int() })),
  excludedPorts: z.array(z.int()),
  leaseTtlMilliseconds: z.int(),
  ephemeralAssignmentTtlMilliseconds: z.int(),
  gracefulShutdownMilliseconds: z.int(),
  historyMaximumEvents: z.int(),
  diagnosticLogMaximumBytes: z.int(),
  diagnosticLogFiles: z.int(),
});

const nullableTs = () => timestamp().nullable();

const claimIdentity = z.object({
  project: z.string(),
  workspaceRoot: z.string(),
  service: z.string(),
  component: z.string(),
  endpoint: z.string(),
  transport: z.string(),
});

export const claim = z.object({
  id: uuid(),
  identity: claimIdentity,
  mode: z.enum(["sticky", "ephemeral"]),
  assignedPort: port().nullable(),
  preferredPort: port().nullable(),
  exactPort: port().nullable(),
  assignmentExpiresAt: nullableTs(),
  createdAt: timestamp().optional(),
  updatedAt: timestamp().optional(),
  lastUsedAt: timestamp(),
});

export const classification = z.enum([
  "available",
  "verified",
  "idle",
  "pending",
  "unclaimed",
  "conflicting",
  "mixed",
  "docker-managed",
]);

/** Which process instance this is: a pid alone can be reused by another program. */
const processFingerprint = z.object({
  pid: z.int(),
  parentPid: z.int(),
  uid: z.int(),
  startTime: z.string(),
  executable: z.string(),
  command: z.string(),
  workingDirectory: z.string(),
});

export const listener = z.object({
  pid: z.int(),
  port: port(),
  command: z.string().nullable(),
  names: z.array(z.string()),
  process: declared(processFingerprint.nullable()),
  ownership: z.object({ verified: z.boolean(), reason: z.string(), lineage: z.array(z.int()) }),
});

/** A live pending lease on a port, as an inventory entry shows it. */
const pendingLease = z.object({
  id: uuid(),
  claimId: uuid(),
  port: port(),
  state: z.string(),
  expiresAt: timestamp(),
});

const run = z.object({
  id: uuid(),
  claimId: uuid(),
  leaseId: uuid(),
  port: port(),
  state: z.enum(["confirmed", "released"]),
  bindingKind: z.enum(["process", "docker"]),
  rootPid: z.int().nullable(),
  rootFingerprint: processFingerprint.nullable(),
  containerId: z.string().nullable(),
  providerEvidence: loose().nullable(),
  confirmedAt: timestamp(),
  releasedAt: nullableTs(),
  confirmedListenerFingerprints: z.array(
    z.object({ fingerprint: processFingerprint, observedAt: timestamp() }),
  ),
});

const dockerEvidence = z.object({
  available: z.boolean(),
  reason: z.string().nullable(),
  containers: z.array(z.object({
    id: z.string(),
    running: z.boolean(),
    labels: z.record(z.string(), z.string()),
    ports: z.array(z.object({ containerPort: port(), hostIp: z.string(), hostPort: port() })),
  })),
});

export const inventoryEntry = z.object({
  port: port(),
  transport: z.string(),
  classification,
  claim: declared(claim.nullable()),
  lease: declared(pendingLease.nullable()),
  run: declared(run.nullable()),
  docker: declared(dockerEvidence.nullable()),
  listeners: z.array(listener),
});

/** A normalised stack definition, as the daemon stores and returns it. */
export const stackDefinitionOut = z.object({
  version: z.int(),
  project: z.string(),
  components: z.record(
    z.string(),
    z.object({
      endpoints: z.record(
        z.string(),
        z.object({
          transport: z.string(),
          publish: z.boolean(),
          required: z.boolean(),
          allocation: z.object({ preferredPort: port().optional(), exactPort: port().optional() }),
          docker: z.object({ containerPort: port() }).optional(),
        }),
      ),
      dependencies: z.record(
        z.string(),
        z.object({ component: z.string(), endpoint: z.string(), required: z.boolean() }),
      ),
      docker: z.object({ service: z.string() }).optional(),
    }),
  ),
});

export const stack = z.object({
  id: uuid(),
  project: z.string(),
  stackRoot: z.string(),
  currentRevision: revision(),
  definition: declared(stackDefinitionOut),
  createdAt: timestamp().optional(),
  updatedAt: timestamp(),
  lastUsedAt: timestamp().optional(),
});

export const generation = z.object({
  id: uuid(),
  stackId: uuid(),
  revision: revision(),
  state: z.enum(["valid", "stale"]),
  endpoints: z.array(z.object({
    claimId: uuid(),
    component: z.string(),
    endpoint: z.string(),
    transport: z.string(),
    host: z.string(),
    port: port(),
    required: z.boolean(),
  })),
  createdAt: timestamp(),
  invalidatedAt: nullableTs(),
});

export const ACTIVATION_STATES = [
  "starting",
  "confirmed",
  "degraded",
  "failed",
  "lost",
  "ended",
] as const;

export const activation = z.object({
  id: uuid(),
  stackId: uuid(),
  generationId: uuid().optional(),
  state: z.enum(ACTIVATION_STATES),
  endpoints: z.array(z.object({
    component: z.string(),
    endpoint: z.string(),
    claimId: uuid().optional(),
    port: port(),
    required: z.boolean(),
    bindingKind: z.enum(["process", "docker"]).optional(),
    state: z.enum(["leased", "confirmed", "skipped", "failed", "released"]),
    leaseId: uuid().nullable(),
    runId: uuid().nullable(),
    expiresAt: nullableTs(),
    failureReason: z.string().nullable(),
    updatedAt: timestamp().optional(),
  })),
  createdAt: timestamp().optional(),
  updatedAt: timestamp().optional(),
  confirmedAt: nullableTs().optional(),
  endedAt: nullableTs(),
});

export const provider = z.object({
  component: z.string(),
  endpoint: z.string(),
  port: port(),
  bindingKind: z.string(),
  status: z.enum(["active", "gone", "unknown"]),
  reason: z.string(),
  listeners: z.int(),
  runId: uuid().nullable(),
  containerId: z.string().nullable(),
});

const address = z.object({ transport: z.string(), host: z.string(), port: port() });

const resolved = z.object({
  component: z.string(),
  endpoint: z.string(),
  host: address,
  dockerNetwork: address.nullable(),
});

export const resolution = z.object({
  schemaVersion: z.literal(1),
  definitionRevision: revision(),
  generationId: uuid(),
  activationId: uuid(),
  component: z.string(),
  own: z.record(z.string(), resolved),
  dependencies: z.record(z.string(), declared(resolved)),
});

const addressed = z.object({ component: z.string(), endpoint: z.string(), address });

export const snapshot = z.object({
  schemaVersion: z.literal(1),
  definitionRevision: revision(),
  generationId: uuid(),
  activationId: uuid(),
  component: z.string(),
  own: z.record(z.string(), addressed),
  dependencies: z.record(z.string(), addressed),
});

const evidenceSummary = z.object({
  classification: z.string(),
  source: z.string(),
  observedAt: nullableTs(),
  generationId: uuid().nullable(),
  activationId: uuid().nullable(),
  listenerCount: z.int(),
  reasonCodes: z.array(z.string()),
});

export const launcherOperation = z.object({
  id: uuid(),
  stackId: uuid().optional(),
  stackRoot: z.string().optional(),
  operation: z.enum(["start", "stop", "restart", "status"]),
  executionMode: z.enum(["finite", "attached"]).optional(),
  launcherRevision: revision().optional(),
  callerOperationId: uuid().optional(),
  generationId: uuid().nullable().optional(),
  state: z.enum(["active", "terminal"]),
  outcome: z.string().nullable(),
  deadlineAt: timestamp(),
  startedAt: timestamp().optional(),
  renewedAt: timestamp().optional(),
  completedAt: nullableTs(),
  durationMilliseconds: z.int().nullable().optional(),
  exitCode: z.int().nullable().optional(),
  signal: z.string().nullable().optional(),
  degraded: z.boolean().optional(),
  beforeEvidence: declared(evidenceSummary.nullable()),
  afterEvidence: declared(evidenceSummary.nullable()),
  failure: declared(
    z.object({ step: z.string(), code: z.string(), message: z.string() }).nullable(),
  ),
  integration: declared(
    z.object({
      mode: z.string(),
      verified: z.boolean(),
      upgradeSuggested: z.boolean(),
      generationId: uuid().nullable(),
      activationId: uuid().nullable(),
    }).nullable(),
  ),
});

/** Who caused a history event: which kind of client, and which run of it. */
const origin = z.object({
  kind: z.string(),
  runId: z.string().optional(),
  label: z.string().optional(),
});

/**
 * A history event; its payload is the event type's own record. Those whose payload is a known
 * record are typed by eventType (a reader tells them apart by it); any other is a map.
 */
const event = <Type extends z.ZodType, Payload extends z.ZodType>(
  eventType: Type,
  payload: Payload,
) =>
  z.object({
    id: uuid(),
    eventType,
    entityType: z.string(),
    entityId: z.string(),
    payload,
    origin: declared(origin.nullable()),
    occurredAt: timestamp(),
  });

export const historyEvent = z.union([
  event(
    z.enum(["launcher.operation.began", "launcher.operation.completed", "launcher.operation.lost"]),
    launcherOperation,
  ),
  event(
    z.literal("claim.created"),
    z.object({
      identity: claimIdentity,
      mode: z.enum(["sticky", "ephemeral"]),
      preferredPort: port().nullable(),
      exactPort: port().nullable(),
      source: z.string().optional(),
    }),
  ),
  event(z.enum(["claim.deleted", "claim.pruned"]), z.object({ claim, reason: z.string() })),
  event(z.string(), loose()),
]);

export const documentIssue = z.object({
  code: z.string(),
  message: z.string(),
  path: z.array(z.string()),
});

// ── Inputs shared by several tools ────────────────────────────────────────────────────────
/** A path no longer than the OS allows (`max` characters, and PATH_MAX in bytes). */
export const boundedPath = (required = false, max: number = INPUT_BOUNDS.path.max) =>
  (required ? z.string().min(1) : z.string()).max(max).refine(
    (p) => p.length * 3 <= INPUT_BOUNDS.path.max || utf8Bytes(p) <= INPUT_BOUNDS.path.max,
    { message: `must be at most ${INPUT_BOUNDS.path.max} bytes (the OS path limit)` },
  );

/**
 * Absolute path, validated without touching the filesystem (the bridge resolves no relative
 * path; the daemon canonicalises absolute ones).
 */
export const absolutePath = (required = false, max?: number) =>
  boundedPath(required, max).refine((p) => p.startsWith("/"), {
    message: "must be an absolute path",
  });

/**
 * A stack definition (version 1), typed so an agent can see its shape from the schema. Names
 * are only bounded here and defaults are left to the daemon, which validates and normalises
 * (publish/required default true, dependency endpoint "default"); this keeps the schema small.
 */
export const stackDefinitionInput = z.strictObject({
  version: z.literal(1),
  project: nameFilter(),
  components: boundedRecord(
    z.strictObject({
      endpoints: boundedRecord(
        z.strictObject({
          transport: z.literal("tcp").optional(),
          publish: z.boolean().optional(),
          required: z.boolean().optional(),
          allocation: z.strictObject({
            preferredPort: port().optional(),
            exactPort: port().optional(),
          }).optional(),
          docker: z.strictObject({ containerPort: port() }).optional(),
        }),
      ).optional(),
      dependencies: boundedRecord(
        z.strictObject({
          component: nameFilter(),
          endpoint: nameFilter().optional(),
          required: z.boolean().optional(),
        }),
      ).optional(),
      docker: z.strictObject({ service: nameFilter() }).optional(),
    }),
  ),
});

// ── Custody ───────────────────────────────────────────────────────────────────────────────
/** When this bridge stops holding (and renewing) a credential, and the latest it could. */
export const custodyTimes = {
  custodyExpiresAt: timestamp(),
  maximumCustodyExpiresAt: timestamp(),
};

/** A renewal that failed since the last call, surfaced instead of swallowed. */
export const renewalFailure = z.object({ code: z.string(), message: z.string(), at: timestamp() })
  .optional();

export const ack = z.object({ changed: z.boolean(), at: timestamp() });

export const abandonReason = () => z.enum(["address-in-use", "startup-error", "client-cancelled"]);
