// In-memory daemon state. Records hold exactly the wire fields plus a few private extras
// (secret hashes, links) that the route modules strip before answering.
import type { Origin, Settings } from "./schemas.ts";
import type { StackDefinition } from "./stackdef.ts";

type ClaimMode = "sticky" | "ephemeral";

export interface Claim {
  id: string;
  project: string;
  workspaceRoot: string;
  component: string;
  endpoint: string;
  mode: ClaimMode;
  assignedPort: number | null;
  preferredPort: number | null;
  exactPort: number | null;
  assignmentExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
  lastUsedAt: string;
}

type LeaseState = "pending" | "confirmed" | "abandoned" | "expired" | "collision";

export interface Lease {
  id: string;
  claimId: string;
  port: number;
  state: LeaseState;
  tokenHash: string;
  expiresAt: string;
  activationId: string | null;
  updatedAt: string;
}

export interface ProcessFingerprint {
  pid: number;
  parentPid: number;
  uid: number;
  startTime: string;
  executable: string;
  command: string;
  workingDirectory: string;
}

export interface Run {
  id: string;
  claimId: string;
  leaseId: string;
  port: number;
  state: "confirmed" | "released";
  bindingKind: "process" | "docker";
  rootPid: number | null;
  rootFingerprint: ProcessFingerprint | null;
  containerId: string | null;
  providerEvidence: null;
  confirmedAt: string;
  releasedAt: string | null;
  confirmedListenerFingerprints: { fingerprint: ProcessFingerprint; observedAt: string }[];
  activationId: string | null;
}

export interface Stack {
  id: string;
  project: string;
  stackRoot: string;
  currentRevision: string;
  definition: StackDefinition;
  createdAt: string;
  updatedAt: string;
  lastUsedAt: string;
}

export interface GenerationEndpoint {
  claimId: string;
  component: string;
  endpoint: string;
  transport: "tcp";
  host: "127.0.0.1";
  port: number;
  required: boolean;
}

export interface Generation {
  id: string;
  stackId: string;
  revision: string;
  state: "valid" | "stale";
  endpoints: GenerationEndpoint[];
  createdAt: string;
  invalidatedAt: string | null;
}

export type ActivationState = "starting" | "confirmed" | "degraded" | "failed" | "lost" | "ended";
type EndpointState = "leased" | "confirmed" | "skipped" | "failed" | "released";

export interface ActivationEndpoint {
  component: string;
  endpoint: string;
  claimId: string;
  port: number;
  required: boolean;
  bindingKind: "process" | "docker";
  state: EndpointState;
  leaseId: string | null;
  runId: string | null;
  expiresAt: string | null;
  failureReason: string | null;
  updatedAt: string;
}

export interface Activation {
  id: string;
  stackId: string;
  generationId: string;
  state: ActivationState;
  endpoints: ActivationEndpoint[];
  createdAt: string;
  updatedAt: string;
  confirmedAt: string | null;
  endedAt: string | null;
}

export interface LauncherRecord {
  id: string;
  stackId: string;
  stackRoot: string;
  operation: "start" | "stop" | "restart" | "status";
  executionMode: "finite" | "attached";
  launcherRevision: string;
  callerOperationId: string;
  generationId: string | null;
  state: "active" | "terminal";
  outcome: "succeeded" | "failed" | "cancelled" | "timed-out" | "lost" | null;
  deadlineAt: string;
  startedAt: string;
  renewedAt: string;
  completedAt: string | null;
  durationMilliseconds: number | null;
  exitCode: number | null;
  signal: string | null;
  degraded: boolean;
  beforeEvidence: Record<string, unknown> | null;
  afterEvidence: Record<string, unknown> | null;
  failure: { step: string; code: string; message: string } | null;
  integration: Record<string, unknown> | null;
}

export interface LauncherEntry {
  record: LauncherRecord;
  credentialHash: string;
}

export interface Receipt {
  id: string;
  action: string;
  targetType: string;
  targetId: string;
  proposal: Record<string, unknown>;
  observed: Record<string, unknown>;
  evidenceHash: string;
  idempotencyKey: string;
  expiresAt: string;
  state: "pending" | "executing" | "completed";
  result: unknown;
}

export interface HistoryEvent {
  id: string;
  eventType: string;
  entityType: string;
  entityId: string;
  payload: Record<string, unknown>;
  origin: Origin | null;
  occurredAt: string;
}

interface LogEntry {
  timestamp: string;
  level: "debug" | "info" | "warn" | "error";
  component: string;
  message: string;
  details: Record<string, unknown>;
}

export class SimState {
  settings: Settings;
  claims = new Map<string, Claim>();
  leases = new Map<string, Lease>();
  runs = new Map<string, Run>();
  stacks = new Map<string, Stack>();
  generations = new Map<string, Generation>();
  activations = new Map<string, Activation>();
  launcher = new Map<string, LauncherEntry>();
  receipts = new Map<string, Receipt>();
  history: HistoryEvent[] = [];
  logs: LogEntry[] = [];

  constructor(settings: Settings) {
    this.settings = settings;
  }

  /** The confirmed run of a claim, if any (at most one exists at a time). */
  activeRunForClaim(claimId: string): Run | undefined {
    for (const run of this.runs.values()) {
      if (run.claimId === claimId && run.state === "confirmed") return run;
    }
    return undefined;
  }

  activeRunOnPort(port: number): Run | undefined {
    for (const run of this.runs.values()) {
      if (run.port === port && run.state === "confirmed") return run;
    }
    return undefined;
  }

  /** A pending lease whose deadline has not passed. */
  livePendingLease(claimId: string, nowIso: string): Lease | undefined {
    for (const lease of this.leases.values()) {
      if (lease.claimId === claimId && lease.state === "pending" && lease.expiresAt > nowIso) {
        return lease;
      }
    }
    return undefined;
  }

  livePendingLeaseOnPort(port: number, nowIso: string): Lease | undefined {
    for (const lease of this.leases.values()) {
      if (lease.port === port && lease.state === "pending" && lease.expiresAt > nowIso) {
        return lease;
      }
    }
    return undefined;
  }

  findClaim(
    project: string,
    workspaceRoot: string,
    component: string,
    endpoint: string,
  ): Claim | undefined {
    for (const claim of this.claims.values()) {
      if (
        claim.project === project && claim.workspaceRoot === workspaceRoot &&
        claim.component === component && claim.endpoint === endpoint
      ) return claim;
    }
    return undefined;
  }

  /** The claim currently holding an unexpired assignment of `port`. */
  claimAssignedTo(port: number, nowIso: string): Claim | undefined {
    for (const claim of this.claims.values()) {
      if (claim.assignedPort !== port) continue;
      if (claim.assignmentExpiresAt !== null && claim.assignmentExpiresAt <= nowIso) continue;
      return claim;
    }
    return undefined;
  }
}
