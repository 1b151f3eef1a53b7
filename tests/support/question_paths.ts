/**
 * Every path that builds a question to a person, as the question property test walks it
 * (tests/unit/catalogue/question_property_test.ts): for each execute, a generated preview —
 * what the agent sends, what a hostile daemon answers — the values its question must show
 * whole, and the same preview with one part of one item's identity changed; for the acquire
 * gate, a generated acquire, what it must show, and its variant.
 */
import type { Json } from "../../src/shared/json.ts";
import type { Gen } from "./hostile_values.ts";
import { settingChange } from "../../src/catalogue/tools/consequential/settings.ts";

/** A generated preview: what the agent sends, what the daemon answers, what the execute sends. */
export interface Made {
  args: Json;
  observed: Json;
  proposal: Json;
  execute: Json;
}

export interface PreviewCase {
  action: string;
  target(made: Made): { type: string; id: string };
  make(g: Gen): Made;
  /** The values its question shows whole, each as a value of its own (when it asks). */
  identity(made: Made): string[];
  /** The same preview with one part of one item's identity changed, visibly. */
  vary(made: Made, g: Gen): Made;
}

/** Every part of a claim's identity, and its id. */
function claimIdentity(claim: Json): string[] {
  const identity = claim.identity as Record<string, string>;
  return [
    String(claim.id),
    identity.project,
    identity.component,
    identity.endpoint,
    identity.workspaceRoot,
  ];
}

/** Every part of a stack's identity, and its id. */
const stackIdentity = (stack: Json) => [stack.id, stack.project, stack.stackRoot].map(String);

const claimRecord = (g: Gen): Json => ({
  id: g.uuid(),
  identity: {
    project: g.hostile(),
    workspaceRoot: g.path(),
    component: g.hostile(),
    endpoint: g.hostile(),
  },
  assignedPort: g.chance(0.7) ? g.port() : null,
});

/** A clone of `claim` with one identity part changed. */
function otherClaim(claim: Json, g: Gen): Json {
  const copy = structuredClone(claim);
  const identity = copy.identity as Json;
  const part = g.pick(["id", "project", "workspaceRoot", "component", "endpoint", "port"]);
  if (part === "id") copy.id = g.uuid();
  else if (part === "port") copy.assignedPort = ((copy.assignedPort as number | null) ?? 1023) + 1;
  else identity[part] = `${identity[part]}x7`;
  return copy;
}

/** Another valid port than `port`, visibly different. */
const nextPort = (port: number) => port === 65535 ? 1024 : port + 1;

/** The preview of a tool on one claim, by its id; `withPort`: the evidence names its port. */
function claimReceipt(action: string, withPort: boolean): PreviewCase {
  return {
    action,
    target: (m) => ({ type: "claim", id: String((m.args as { claimId: string }).claimId) }),
    make(g) {
      const claimId = g.uuid();
      const claim = claimRecord(g);
      return {
        args: { claimId },
        proposal: {},
        observed: withPort ? { claim, port: g.port() } : { claim },
        execute: { claimId },
      };
    },
    identity: (made) => claimIdentity((made.observed as Json).claim as Json),
    vary(made, g) {
      const copy = structuredClone(made);
      const observed = copy.observed as Json;
      if (withPort && g.chance(0.2)) observed.port = nextPort(observed.port as number);
      else observed.claim = otherClaim(observed.claim as Json, g);
      return copy;
    },
  };
}

export function at<T>(list: T[], g: Gen): number {
  return g.int(list.length);
}

const stackRecord = (g: Gen): Json => ({
  id: g.uuid(),
  project: g.hostile(),
  stackRoot: g.path(),
});

function otherStack(stack: Json, g: Gen): Json {
  const copy = structuredClone(stack);
  const part = g.pick(["id", "project", "stackRoot"]);
  copy[part] = part === "id" ? g.uuid() : `${copy[part]}x7`;
  return copy;
}

const DEFINITION = {
  version: 1,
  project: "shop",
  components: { web: { endpoints: { http: {} } } },
};

export const CASES: Record<string, PreviewCase> = {
  portreeve_port_reclaim_execute: {
    action: "port.reclaim",
    target: (m) => ({ type: "port", id: String((m.args as { port: number }).port) }),
    make(g) {
      const port = g.port();
      const outcome = g.pick([
        "would-terminate",
        "would-terminate",
        "already-free",
        "refused",
        g.hostile(),
      ]);
      // Nothing listens on a free port: its evidence names no process.
      const targets = outcome === "already-free"
        ? []
        : g.list(() => ({ pid: g.pid(), command: g.chance(0.2) ? null : g.hostile() }));
      return {
        args: { port, policy: g.pick(["graceful", "force-after-grace"]) },
        proposal: { policy: "graceful" },
        observed: {
          port,
          policy: g.hostile(),
          outcome: g.pick([
            "would-terminate",
            "would-terminate",
            "already-free",
            "refused",
            g.hostile(),
          ]),
          reason: g.hostile(),
          launcherAction: null,
          targets,
          inventory: g.chance(0.5)
            ? { run: { id: g.hostile() } }
            : g.chance(0.5)
            ? { run: null }
            : {},
        },
        execute: { port },
      };
    },
    identity(made) {
      const observed = made.observed as Json;
      const targets = observed.targets as { pid: number; command: string | null }[];
      const run = (observed.inventory as Json)?.run as Json | null | undefined;
      // The daemon names a pid once: its last command stands.
      const commands = [...new Map(targets.map((t) => [t.pid, t.command])).values()];
      return [
        String(observed.policy),
        ...(observed.outcome === "would-terminate"
          ? commands.filter((c) => c !== null) as string[]
          : run
          ? [String(run.id)]
          : []),
      ];
    },
    vary(made, g) {
      const copy = structuredClone(made);
      const observed = copy.observed as Json;
      const targets = observed.targets as Json[];
      if (targets.length > 0 && g.chance(0.7)) targets[at(targets, g)].pid = g.pid() + 1_000_000;
      else observed.port = nextPort(observed.port as number);
      return copy;
    },
  },
  // A claim's id is its receipt's target and the execute's only input; the reassign's
  // evidence also names the port the claim holds now.
  portreeve_claim_reassign_execute: claimReceipt("claim.reassign", true),
  portreeve_claim_delete_execute: claimReceipt("claim.delete", false),
  portreeve_claims_prune_execute: {
    action: "claims.prune",
    target: () => ({ type: "claim-collection", id: "global" }),
    make(g) {
      return {
        args: { olderThanMilliseconds: 0 },
        proposal: { olderThanMilliseconds: 0 },
        observed: {
          candidates: g.list(() => ({ claim: claimRecord(g), reason: g.hostile() })),
          skipped: g.list(() => ({ claimId: g.hostile(), reason: g.hostile() }), 3),
          deletedClaimIds: [],
        },
        execute: {},
      };
    },
    identity(made) {
      const { candidates, skipped } = made.observed as Record<string, Json[]>;
      return [
        ...candidates.flatMap((c) => claimIdentity(c.claim as Json)),
        ...skipped.flatMap((s) => [String(s.claimId), String(s.reason)]),
      ];
    },
    vary(made, g) {
      const copy = structuredClone(made);
      const candidates = (copy.observed as Json).candidates as Json[];
      if (candidates.length === 0) candidates.push({ claim: claimRecord(g), reason: "gone" });
      else {
        const i = at(candidates, g);
        candidates[i] = { ...candidates[i], claim: otherClaim(candidates[i].claim as Json, g) };
      }
      return copy;
    },
  },
  portreeve_stack_apply_execute: {
    action: "stack.apply",
    target: (m) => ({
      type: "stack-root",
      id: String((m.args as { stackRoot: string }).stackRoot),
    }),
    make(g) {
      const stackRoot = g.path(1000);
      return {
        args: { stackRoot, definition: DEFINITION },
        proposal: { revision: g.hex(64) },
        observed: {
          document: {
            path: g.path(),
            kind: g.pick([
              "missing",
              "regular",
              "regular",
              "non-regular",
              "oversized",
              g.hostile(),
            ]),
            fingerprint: g.chance(0.5) ? g.hostile() : null,
            issues: g.chance(0.3) ? [{ code: "x", message: g.hostile(), path: [] }] : [],
          },
          stack: {
            changed: g.chance(0.5),
            existing: g.chance(0.5) ? { id: g.uuid() } : null,
            revision: g.hostile(),
          },
        },
        execute: { stackRoot },
      };
    },
    identity(made) {
      const { document, stack } = made.observed as Record<string, Json>;
      const existing = stack.existing as Json | null;
      return [String(document.path), ...(existing ? [String(existing.id)] : [])];
    },
    vary(made, g) {
      const copy = structuredClone(made);
      const { document, stack } = copy.observed as { document: Json; stack: Json };
      if (g.chance(0.5) || stack.existing === null) document.path = `${document.path}x7`;
      else stack.existing = { id: g.uuid() };
      return copy;
    },
  },
  portreeve_stacks_prune_execute: {
    action: "stacks.prune",
    target: () => ({ type: "stack-collection", id: "global" }),
    make(g) {
      return {
        args: { olderThanMilliseconds: 0 },
        proposal: { olderThanMilliseconds: 0 },
        observed: {
          candidates: g.list(() => ({
            stack: stackRecord(g),
            claimIds: g.list(() => g.uuid(), 4),
            reason: g.hostile(),
          })),
          blocked: g.list(
            () => ({ stack: stackRecord(g), reasons: g.list(() => g.hostile(), 3) }),
            3,
          ),
          deletedStackIds: [],
          skipped: [],
        },
        execute: {},
      };
    },
    identity(made) {
      const { candidates, blocked } = made.observed as Record<string, Json[]>;
      return [
        ...candidates.flatMap((c) => stackIdentity(c.stack as Json)),
        ...blocked.flatMap((b) => [
          ...stackIdentity(b.stack as Json),
          ...(b.reasons as string[]),
        ]),
      ];
    },
    vary(made, g) {
      const copy = structuredClone(made);
      const candidates = (copy.observed as Json).candidates as Json[];
      if (candidates.length === 0) {
        candidates.push({ stack: stackRecord(g), claimIds: [], reason: "gone" });
      } else {
        const i = at(candidates, g);
        candidates[i] = { ...candidates[i], stack: otherStack(candidates[i].stack as Json, g) };
      }
      return copy;
    },
  },
  portreeve_settings_update_execute: {
    action: "settings.update",
    target: () => ({ type: "settings", id: "global" }),
    make(g) {
      const updates: Json = {};
      const current: Json = {};
      for (let i = 0; i < 1 + g.int(4); i++) {
        const key = g.chance(0.5) ? g.hostile() : g.pick(["excludedPorts", "leaseTtlMilliseconds"]);
        updates[key] = settingValue(g, key);
        if (g.chance(0.7)) current[key] = settingValue(g, key);
      }
      return {
        args: { updates: { leaseTtlMilliseconds: 20_000 } },
        proposal: { updates },
        observed: { current },
        execute: {},
      };
    },
    identity(made) {
      const updates = (made.proposal as Json).updates as Json;
      const current = (made.observed as Json).current as Json;
      // A setting whose value stays the same is no change, and is not named.
      return Object.keys(updates).filter((key) =>
        settingChange(key, current[key], updates[key]) !== undefined
      );
    },
    vary(made, g) {
      const copy = structuredClone(made);
      const updates = (copy.proposal as Json).updates as Json;
      const key = g.pick(Object.keys(updates));
      const value = updates[key];
      if (Array.isArray(value) && value.length > 0) {
        // The same number of ports, one of them another: a count alone would read the same.
        const ports = [...value] as number[];
        let other = g.port();
        while (ports.includes(other)) other = g.port();
        ports[at(ports, g)] = other;
        updates[key] = ports;
      } else updates[key] = Array.isArray(value) ? [g.port()] : (value as number) + 1;
      return copy;
    },
  },
};

function settingValue(g: Gen, key: string): Json[string] {
  return key === "excludedPorts" || g.chance(0.3) ? g.list(() => g.port(), 600) : g.int(1_000_000);
}

export interface AcquireMade {
  claim: Json;
  policy: string;
  runId: string;
  port: number;
  listeners: { pid: number; command: string | null }[];
}

export function acquireMade(g: Gen): AcquireMade {
  return {
    claim: {
      project: g.name(),
      workspaceRoot: g.path(),
      component: g.name(),
      endpoint: g.name(),
    },
    policy: g.pick(["graceful", "force-after-grace"]),
    runId: g.hostile(),
    port: g.port(),
    listeners: g.list(() => ({ pid: g.pid(), command: g.chance(0.2) ? null : g.hostile() })),
  };
}

/**
 * What the acquire's question shows whole: the claim as it is sent (the tool trims its names),
 * the run, every command.
 */
export function acquireIdentity(made: AcquireMade): string[] {
  const claim = made.claim as Record<string, string>;
  return [
    claim.project.trim(),
    claim.component.trim(),
    claim.endpoint.trim(),
    claim.workspaceRoot,
    made.runId,
    ...made.listeners.flatMap((l) => l.command === null ? [] : [l.command]),
  ];
}

export function varyAcquire(made: AcquireMade, g: Gen): AcquireMade {
  const copy = structuredClone(made);
  const part = g.pick(["claim", "policy", "run", "port", "pid"]);
  if (part === "claim") {
    const key = g.pick(["project", "workspaceRoot", "component", "endpoint"]);
    copy.claim[key] = `${String(copy.claim[key]).slice(0, 120)}x7`;
  } else if (part === "policy") {
    copy.policy = copy.policy === "graceful" ? "force-after-grace" : "graceful";
  } else if (part === "run") copy.runId = `${copy.runId}x7`;
  else if (part === "pid" && copy.listeners.length > 0) {
    copy.listeners[at(copy.listeners, g)].pid += 1_000_000;
  } else copy.port = nextPort(copy.port);
  return copy;
}
