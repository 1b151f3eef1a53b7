/**
 * The daemon's records as tools return them, defined once: the fields agents act on typed,
 * rare nested detail kept loose (inputs, scalars and pages: shapes.ts).
 */
import { z } from "zod";
import { declared, port, revision, timestamp, uuid } from "./shapes.ts";

/** Nested detail the bridge passes on as the daemon sent it. */
const loose = () => z.record(z.string(), z.unknown());

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
