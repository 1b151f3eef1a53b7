/**
 * THE property of every question put to a person (declared in src/catalogue/question.ts),
 * walked over every path that builds one — the preview of every `*_execute` tool and the
 * acquire gate — with hostile values from a seeded generator: quote-likes of every script,
 * fillers, tag characters, zero-width and bidi characters, right-to-left text, combining-mark
 * stacks, terminal escapes, line breaks, long strings and long lists. For each question:
 *
 * - no delimiter inside a value: every `"` is a delimiter, no other quote-like occurs, and no
 *   agent or daemon text (each carries a trace token) stands outside a pair of delimiters;
 * - the cap holds: at most QUESTION_MAX characters; a change that cannot fit is never asked;
 * - nothing invisible: no control, format, private, unassigned or filler character but the
 *   isolates just inside a delimiter, and no more than two stacked combining marks;
 * - distinct items → distinct questions: changing any part of an item's identity (an id, a
 *   name, a path, a port, a pid, a setting's value) changes the question;
 * - nothing is asked about a preview that will change nothing or be refused.
 *
 * The walk covers every execute tool and every tool whose input can be consequential: a new
 * one without a case here fails the first test. Checks are written here, independently of
 * question.ts.
 */
import assert from "node:assert/strict";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { isValueRule } from "../../../src/daemon/effects.ts";
import { QUESTION_MAX } from "../../../src/catalogue/question.ts";
import type { Asking } from "../../../src/catalogue/receipt_book.ts";
import { ok, type Reply, type Sent, toolRig } from "../../support/scripted_daemon.ts";
import type { HostChannel } from "../../../src/shared/host_channel.ts";
import type { Json } from "../../../src/shared/json.ts";
import { Gen, HIDDEN_POOL, QUOTE_POOL } from "../../support/hostile_values.ts";

const RUNS = 40;
const EXPIRES = "2026-11-30T04:23:00.000Z";

/** A generated preview: what the agent sends, what the daemon answers, what the execute sends. */
interface Made {
  args: Json;
  observed: Json;
  proposal: Json;
  execute: Json;
}

interface PreviewCase {
  action: string;
  target(made: Made): { type: string; id: string };
  make(g: Gen): Made;
  /** The same preview with one part of one item's identity changed, visibly. */
  vary(made: Made, g: Gen): Made;
}

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

function at<T>(list: T[], g: Gen): number {
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

const CASES: Record<string, PreviewCase> = {
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
    vary(made, g) {
      const copy = structuredClone(made);
      const observed = copy.observed as Json;
      const targets = observed.targets as Json[];
      if (targets.length > 0 && g.chance(0.7)) targets[at(targets, g)].pid = g.pid() + 1_000_000;
      else {observed.port = (observed.port as number) === 65535
          ? 1024
          : (observed.port as number) + 1;}
      return copy;
    },
  },
  portreeve_claim_reassign_execute: {
    action: "claim.reassign",
    target: (m) => ({ type: "claim", id: String((m.args as { claimId: string }).claimId) }),
    make(g) {
      const claimId = g.uuid();
      return {
        args: { claimId },
        proposal: {},
        observed: { claim: claimRecord(g), port: g.port() },
        execute: { claimId },
      };
    },
    vary(made, g) {
      const copy = structuredClone(made);
      const observed = copy.observed as Json;
      if (g.chance(0.2)) {
        observed.port = (observed.port as number) === 65535 ? 1024 : (observed.port as number) + 1;
      } else observed.claim = otherClaim(observed.claim as Json, g);
      return copy;
    },
  },
  portreeve_claim_delete_execute: {
    action: "claim.delete",
    target: (m) => ({ type: "claim", id: String((m.args as { claimId: string }).claimId) }),
    make(g) {
      const claimId = g.uuid();
      return {
        args: { claimId },
        proposal: {},
        observed: { claim: claimRecord(g) },
        execute: { claimId },
      };
    },
    vary(made, g) {
      const copy = structuredClone(made);
      const observed = copy.observed as Json;
      observed.claim = otherClaim(observed.claim as Json, g);
      return copy;
    },
  },
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

/** Hebrew, Arabic and the other right-to-left blocks. */
const RIGHT_TO_LEFT =
  /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFE\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;

/** Trace tokens of agent and daemon text: each generated value carries one. */
const TOKEN = /Zq\d+qZ/;

/** The faults this test sees in a question (empty when the property holds). */
function faults(text: string): string[] {
  const found: string[] = [];
  if (text.length > QUESTION_MAX) found.push(`${text.length} > ${QUESTION_MAX} characters`);
  const parts = text.split('"');
  if (parts.length % 2 === 0) found.push("a delimiter without its pair");
  parts.forEach((part, i) => {
    // Outside the delimiters only the bridge's words stand: no agent or daemon text.
    if (i % 2 === 0 && TOKEN.test(part.replace(/\p{M}/gu, ""))) {
      found.push(`value text outside delimiters: ${JSON.stringify(part.slice(0, 80))}`);
    }
    if (i % 2 === 1) {
      const inner = part.startsWith("\u2068") && part.endsWith("\u2069") ? part.slice(1, -1) : part;
      if (/[\u2068\u2069]/.test(inner)) found.push("an isolate inside a value");
      if (/^\p{M}/u.test(inner)) found.push("a mark on the opening delimiter");
      if (RIGHT_TO_LEFT.test(inner) && inner === part) {
        found.push("right-to-left text not isolated");
      }
    } else if (/[\u2068\u2069]/.test(part)) found.push("an isolate outside a value");
  });
  for (const char of text) {
    if (QUOTE_POOL.includes(char) && char !== '"') found.push(`quote-like U+${hex(char)}`);
    // The isolates are checked above: only just inside a pair of delimiters.
    if (HIDDEN_POOL.includes(char) && !"\u2068\u2069".includes(char)) {
      found.push(`hidden U+${hex(char)}`);
    }
    if (char !== "\n" && /[\p{Cc}\p{Co}\p{Cn}\p{Cs}]/u.test(char)) {
      found.push(`control U+${hex(char)}`);
    }
    if (!"\u2068\u2069".includes(char) && /\p{Cf}/u.test(char)) found.push(`format U+${hex(char)}`);
  }
  if (/\p{M}{3}/u.test(text)) found.push("three stacked combining marks");
  return found;
}

const hex = (char: string) => char.codePointAt(0)!.toString(16).toUpperCase();

/** A host whose person declines, keeping every question. */
function person() {
  const asked: string[] = [];
  const host: HostChannel = {
    canAsk: true,
    ask: (form) => {
      asked.push(form.message);
      return Promise.resolve({ action: "decline" });
    },
  };
  return { host, asked };
}

/**
 * Previews `made` through the real tool, then executes it with a person who declines. The
 * receipt id is the caller's: two walks compared for distinctness share it.
 */
async function walkPreview(tool: string, spec: PreviewCase, made: Made, receiptId: string) {
  const reply: Reply = ok({
    receiptId,
    action: spec.action,
    target: spec.target(made),
    proposal: made.proposal,
    observed: made.observed,
    expiresAt: EXPIRES,
  });
  const script = (sent: Sent) => {
    if (sent.path.endsWith("/execute")) throw new Error(`${tool}: an unapproved execute was sent`);
    return reply;
  };
  const { host, asked } = person();
  await using rig = toolRig(script, { host });
  const previewTool = tool.replace(/_execute$/, "_preview");
  const preview = await rig.call(previewTool, made.args);
  assert.equal(preview.ok, true, `${previewTool}: ${JSON.stringify(preview.error)}`);
  const asking: Asking = rig.ctx.receipts.get(receiptId)!.asking;
  const executed = await rig.call(tool, { receiptId, ...made.execute });
  assert.equal(executed.ok, false, `${tool} was executed unasked`);
  return { asking, asked, approval: preview.data!.approval ?? null, error: executed.error! };
}

/** Tallies, so the walk cannot pass by never reaching a kind of outcome. */
const seen = new Map<string, number>();
const tally = (what: string) => seen.set(what, (seen.get(what) ?? 0) + 1);

Deno.test("every execute and every consequential input has a question case here", () => {
  const executes = ALL_TOOLS.filter((t) => t.kind === "execute").map((t) => t.name).sort();
  assert.deepEqual(Object.keys(CASES).sort(), executes);
  const inputs = ALL_TOOLS.filter((t) =>
    t.kind !== "execute" && (t.routes ?? []).some((route) => isValueRule(route.effect))
  ).map((t) => t.name);
  assert.deepEqual(inputs, ["portreeve_lease_acquire"], "each has its walk below");
});

for (const [tool, spec] of Object.entries(CASES)) {
  Deno.test(`question property: ${tool}`, async () => {
    const g = new Gen(tool);
    for (let run = 0; run < RUNS; run++) {
      const made = spec.make(g);
      const receiptId = g.uuid();
      const first = await walkPreview(tool, spec, made, receiptId);
      const where = `${tool} run ${run}`;
      const { asking } = first;
      tally(`${tool}:${asking.kind}`);
      if (asking.kind !== "question") {
        // Nothing to do, refused, or too long to name: nobody is asked, the data asks nothing.
        assert.equal(first.asked.length, 0, where);
        assert.equal(first.approval, null, where);
        if (asking.kind === "too_long_to_ask") assert.ok(asking.length > QUESTION_MAX, where);
        continue;
      }
      assert.deepEqual(faults(asking.text), [], `${where}:\n${asking.text}`);
      assert.deepEqual(first.asked, [asking.text], `${where}: the person saw exactly this`);
      assert.equal(first.error.code, "portreeve_approval_declined", where);
      // Distinct items, distinct questions.
      const other = await walkPreview(tool, spec, spec.vary(made, g), receiptId);
      if (other.asking.kind === "question") {
        tally(`${tool}:distinct`);
        assert.notEqual(
          other.asking.text,
          asking.text,
          `${where}: an item changed, the question did not`,
        );
      }
    }
  });
}

Deno.test("question property: the acquire gate", async () => {
  const g = new Gen("acquire");
  for (let run = 0; run < RUNS; run++) {
    const made = acquireMade(g);
    const first = await walkAcquire(made);
    const where = `acquire run ${run}`;
    if (first.question === undefined) {
      tally("acquire:too_long_to_ask");
      assert.equal(first.code, "portreeve_approval_unavailable", where);
      continue;
    }
    tally("acquire:question");
    assert.deepEqual(faults(first.question), [], `${where}:\n${first.question}`);
    const other = await walkAcquire(varyAcquire(made, g));
    if (other.question !== undefined) {
      tally("acquire:distinct");
      assert.notEqual(other.question, first.question, `${where}: an item changed`);
    }
  }
});

interface AcquireMade {
  claim: Json;
  policy: string;
  runId: string;
  port: number;
  listeners: { pid: number; command: string | null }[];
}

function acquireMade(g: Gen): AcquireMade {
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

function varyAcquire(made: AcquireMade, g: Gen): AcquireMade {
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
  } else copy.port = copy.port === 65535 ? 1024 : copy.port + 1;
  return copy;
}

/** The acquire through the real tool: the question the person was asked, or the refusal. */
async function walkAcquire(made: AcquireMade) {
  const claimId = "0b7e0f6e-6a55-4e8c-9a49-3f1c1c0d2a11";
  const entry = {
    port: made.port,
    claim: { id: claimId },
    run: { id: made.runId, claimId, state: "confirmed" },
    listeners: made.listeners,
  };
  const script = (sent: Sent) => {
    if (sent.method === "GET" && sent.path === "/v1/ports") return ok([entry]);
    throw new Error(`an unapproved ${sent.method} ${sent.path} was sent`);
  };
  const { host, asked } = person();
  await using rig = toolRig(script, { host });
  const r = await rig.call("portreeve_lease_acquire", {
    claim: made.claim,
    allocation: { replacementPolicy: made.policy },
  });
  assert.equal(r.ok, false);
  return { question: asked[0], code: r.error?.code };
}

Deno.test("question property: the walk reached every outcome", () => {
  const must = [
    ...Object.keys(CASES).flatMap((tool) => [`${tool}:question`, `${tool}:distinct`]),
    "portreeve_claims_prune_execute:too_long_to_ask",
    "portreeve_claims_prune_execute:nothing_to_do",
    "portreeve_stacks_prune_execute:too_long_to_ask",
    "portreeve_port_reclaim_execute:preview_refused",
    "portreeve_settings_update_execute:too_long_to_ask",
    "acquire:question",
    "acquire:distinct",
    "acquire:too_long_to_ask",
  ];
  assert.deepEqual(must.filter((what) => !seen.has(what)), [], JSON.stringify([...seen]));
});
