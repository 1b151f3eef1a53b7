/**
 * What the receipt tools send and how they read the answer, against a scripted daemon: paths
 * and bodies (execute sends only the receipt and the target), timeouts, summaries, blockers,
 * and receipt errors that keep their code and details but say what to do next.
 */
import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { Catalogue } from "../../../../../src/catalogue/catalogue.ts";
import { listTools } from "../../../../../src/results/describe.ts";
import type { ToolContext } from "../../../../../src/catalogue/context.ts";
import { ALL_TOOLS } from "../../../../../src/catalogue/index.ts";

import { showSetting } from "../../../../../src/catalogue/tools/consequential/settings.ts";
import { BridgeError } from "../../../../../src/shared/errors.ts";
import { ReceiptBook } from "../../../../../src/catalogue/receipt_book.ts";
import { NO_HOST_CHANNEL } from "../../../../support/person.ts";
import { pathOf, type Route } from "../../../../../src/daemon/routes.ts";
import { approvalPair } from "../../../../support/approvals.ts";
import type { RequestCall } from "../../../../../src/daemon/client.ts";
import { envelopeOf } from "../../../../../src/results/result.ts";

const CONSEQUENTIAL_TOOLS = ALL_TOOLS.filter((t) => t.kind === "preview" || t.kind === "execute");

interface Sent {
  path: string;
  body: Record<string, unknown>;
  timeoutMs?: number;
}

type Answer = unknown | BridgeError;

/** A catalogue whose daemon answers POSTs from `answer` and records what was sent. */
function scripted(answer: (path: string) => Answer) {
  const sent: Sent[] = [];
  const { gate, approvals } = approvalPair();
  const daemon = {
    request: (route: Route, call: RequestCall) => {
      const path = pathOf(route, call.params);
      const body = call.body ?? {};
      // The real client's gate: a consequential request needs its approval proof.
      gate.admit(route, path, body, call.approval);
      sent.push({ path, body, timeoutMs: call.timeoutMs });
      const a = answer(path);
      return a instanceof BridgeError ? Promise.reject(a) : Promise.resolve(a);
    },
  };
  // Receipts expire by this clock: a fixed moment before EXPIRES.
  const receipts = new ReceiptBook(500, () => Date.parse(EXPIRES) - 60_000);
  // Only the daemon and the signal are used by these tools.
  const ctx = {
    daemon,
    signal: new AbortController().signal,
    receipts,
    approvals,
    // The host's own tool prompt stands in (auto): these tests are about what is sent.
    bridge: { approval: "auto", approvalMs: 1000 },
    host: NO_HOST_CHANNEL,
  } as unknown as Omit<
    ToolContext,
    "capabilities"
  >;
  const catalogue = new Catalogue(
    "full",
    listTools(CONSEQUENTIAL_TOOLS).tools,
    () => Promise.resolve(CONSEQUENTIAL_TOOLS),
  );
  return {
    sent,
    /** RECEIPT as a preview through this bridge would have issued it, for `action` on `target`. */
    issue(action: string, target: { type: string; id: string }) {
      receipts.remember({
        receiptId: RECEIPT,
        action,
        target,
        expiresAt: EXPIRES,
        asking: { kind: "question", parts: ["unused"] },
      });
    },
    call: async (name: string, args: Record<string, unknown>) => {
      const answer = await catalogue.call(`portreeve_${name}`, args, ctx);
      if (answer.resultType === "input_required") throw new Error(`${name} asked for input`);
      const r = answer as CallToolResult;
      const structured = envelopeOf(r) as {
        ok: boolean;
        data?: Record<string, unknown>;
        error?: BridgeError;
      };
      return {
        ...structured,
        isError: r.isError === true,
        // The summary line; the JSON after it is checked by the result-format tests.
        text: (r.content[0] as { text: string }).text.split("\n")[0],
      };
    },
  };
}

const RECEIPT = "8c6f1a2b-1111-4222-8333-444455556666";
const EXPIRES = "2026-03-01T12:34:56.000Z";
const preview = (
  action: string,
  target: { type: string; id: string },
  proposal: object,
  observed: object,
) => ({
  receiptId: RECEIPT,
  action,
  target,
  proposal,
  observed,
  expiresAt: EXPIRES,
});

Deno.test("reclaim preview: the human summary names the processes; the receipt and next step beside it", async () => {
  const daemon = scripted(() =>
    preview("port.reclaim", { type: "port", id: "5173" }, { policy: "graceful" }, {
      port: 5173,
      policy: "graceful",
      outcome: "would-terminate",
      reason: null,
      launcherAction: null,
      targets: [{ pid: 1234, command: "node" }, { pid: 1234, command: "node" }],
      inventory: {},
    })
  );
  const r = await daemon.call("port_reclaim_preview", { port: 5173, policy: "graceful" });
  assert.equal(
    r.data?.summary,
    "Reclaim port 5173 with graceful: would terminate pid 1234 (node).",
  );
  assert.equal(r.data?.receiptId, RECEIPT);
  assert.equal(r.data?.expiresAt, EXPIRES);
  assert.equal(
    r.data?.nextStep,
    "Show the user this preview; only after they explicitly approve, call " +
      "portreeve_port_reclaim_execute with its receiptId.",
  );
  // The text block is the same JSON: the summary and next step are read once.
  assert.equal(r.text.split("would terminate pid 1234").length, 2);
  assert.deepEqual(daemon.sent, [{
    path: "/v1/actions/ports/5173/reclaim/preview",
    body: { policy: "graceful" },
    timeoutMs: undefined,
  }]);
  assert.equal(
    r.data?.blockers ?? null,
    null,
    "no blockers: null (the compact form leaves it out)",
  );
});

Deno.test("reclaim preview: refusals and Docker listeners are blockers", async () => {
  const observed = (outcome: string, reason: string | null, launcherAction: unknown = null) =>
    preview("port.reclaim", { type: "port", id: "80" }, {}, {
      port: 80,
      policy: "never",
      outcome,
      reason,
      launcherAction,
      targets: [{ pid: 9, command: null }],
    });
  let answer: unknown = observed("refused", "replacement-policy-never");
  const daemon = scripted(() => answer);
  let r = await daemon.call("port_reclaim_preview", { port: 80, policy: "never" });
  assert.deepEqual(r.data?.blockers, ["replacement-policy-never"]);
  // The daemon would refuse: nothing to approve, and the execute will refuse it unasked.
  assert.equal(r.data?.approval ?? null, null);
  assert.match(
    r.data?.nextStep as string,
    /^portreeve_port_reclaim_execute will refuse this receipt: Its preview's blockers say what stands in the way/,
  );
  assert.match(
    String(r.data?.summary),
    /refused; nothing would be signalled\. Blocked: replacement-policy-never\./,
  );
  answer = observed("launcher-action-required", "docker-managed-listener", {
    containerIds: ["abc123def456"],
  });
  r = await daemon.call("port_reclaim_preview", { port: 80, policy: "never" });
  assert.deepEqual(r.data?.blockers, ["stop container(s) abc123def456 via the launcher"]);
  assert.equal(r.data?.approval ?? null, null);
});

Deno.test("reclaim execute: sends only the receipt, waits as long as the call, reports the outcome", async () => {
  const daemon = scripted(() => ({
    changed: true,
    replayed: false,
    result: { outcome: "terminated", reason: null },
  }));
  daemon.issue("port.reclaim", { type: "port", id: "5173" });
  const r = await daemon.call("port_reclaim_execute", { receiptId: RECEIPT, port: 5173 });
  assert.deepEqual(daemon.sent, [{
    path: "/v1/actions/ports/5173/reclaim/execute",
    body: { receiptId: RECEIPT },
    // No deadline of its own: the reclaim (grace period, then lsof) waits as long as the call.
    timeoutMs: undefined,
  }]);
  // Compact: reason null is left out.
  assert.deepEqual(r.data, { changed: true, replayed: false, result: { outcome: "terminated" } });
});

Deno.test("reclaim execute: a refusal says nothing was signalled, not that it executed", async () => {
  const daemon = scripted(() => ({
    changed: true,
    replayed: false,
    result: { outcome: "refused", reason: "ownership-context-changed" },
  }));
  daemon.issue("port.reclaim", { type: "port", id: "5173" });
  const r = await daemon.call("port_reclaim_execute", { receiptId: RECEIPT, port: 5173 });
  assert.deepEqual(r.data?.result, { outcome: "refused", reason: "ownership-context-changed" });
});

Deno.test("execute replay: recorded outcome, nothing re-applied", async () => {
  const daemon = scripted(() => ({
    changed: false,
    replayed: true,
    result: { deleted: true, claimId: RECEIPT },
  }));
  daemon.issue("claim.delete", { type: "claim", id: RECEIPT });
  const r = await daemon.call("claim_delete_execute", {
    receiptId: RECEIPT,
    claimId: RECEIPT.toUpperCase(),
  });
  assert.equal(
    daemon.sent[0].path,
    `/v1/actions/claims/${RECEIPT}/delete/execute`,
    "lowercase id in the path",
  );
  assert.deepEqual(r.data, {
    changed: false,
    replayed: true,
    result: { deleted: true, claimId: RECEIPT },
  });
});

Deno.test("receipt errors keep code and details, and say what to do next", async () => {
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [
      { receiptCode: "receipt_mismatch" },
      "portreeve_conflict",
      /send the target exactly as the preview had it, or preview again/,
    ],
    [{ receiptCode: "receipt_expired" }, "portreeve_conflict", /Receipts last 5 minutes/],
    [{ receiptCode: "not_found" }, "portreeve_not_found", /only a receiptId a preview returned/],
    [
      { documentCode: "stack_definition_changed" },
      "portreeve_conflict",
      /changed since the preview/,
    ],
  ];
  for (const [details, code, hint] of cases) {
    const daemon = scripted(() => new BridgeError(code, "Daemon said no.", false, details));
    daemon.issue("stack.apply", { type: "stack-root", id: "/srv/app/" });
    const r = await daemon.call("stack_apply_execute", {
      receiptId: RECEIPT,
      stackRoot: "/srv/app/",
    });
    assert.equal(r.isError, true);
    assert.equal(r.error?.code, code);
    assert.deepEqual(r.error?.details, details);
    assert.equal(r.error!.message, "Daemon said no.", "the daemon's message is kept as sent");
    assert.match((r.error as unknown as { nextStep: string }).nextStep, hint);
    assert.deepEqual(
      daemon.sent[0].body,
      { receiptId: RECEIPT, stackRoot: "/srv/app/" },
      "raw stackRoot",
    );
  }
  const other = scripted(() =>
    new BridgeError("portreeve_conflict", "Port busy.", true, { reason: "live_listener" })
  );
  other.issue("claim.reassign", { type: "claim", id: RECEIPT });
  const r = await other.call("claim_reassign_execute", { receiptId: RECEIPT, claimId: RECEIPT });
  assert.equal(r.error?.message, "Port busy.", "other errors pass through unchanged");
});

Deno.test("stack apply: the summary says what is written and registered; a non-regular file blocks", async () => {
  const observed = (kind: string, existing: unknown, changed: boolean) => ({
    document: {
      path: "/srv/app/portreeve.stack.json",
      kind,
      fingerprint: null,
      revision: null,
      issues: [],
    },
    stack: { changed, existing, revision: "ab".repeat(32), definition: {} },
  });
  let answer = preview(
    "stack.apply",
    { type: "stack-root", id: "/srv/app" },
    {},
    observed("missing", null, true),
  );
  const daemon = scripted(() => answer);
  const definition = { version: 1, project: "shop", components: { web: {} } };
  let r = await daemon.call("stack_apply_preview", { stackRoot: "/srv/app", definition });
  assert.match(
    String(r.data?.summary),
    /^Create \/srv\/app\/portreeve\.stack\.json and register a new stack at revision abababababab\./,
  );
  assert.deepEqual(daemon.sent[0].body, { stackRoot: "/srv/app", definition });
  answer = preview(
    "stack.apply",
    { type: "stack-root", id: "/srv/app" },
    {},
    observed("non-regular", { id: RECEIPT }, false),
  );
  r = await daemon.call("stack_apply_preview", { stackRoot: "/srv/app", definition });
  assert.match(
    String(r.data?.summary),
    new RegExp(`^Replace .* and leave stack ${RECEIPT} unchanged\\. Blocked: .* is non-regular`),
  );
  assert.equal(
    r.data?.approval ?? null,
    null,
    "the daemon will not replace it: nothing to approve",
  );

  const exec = scripted(() => ({
    changed: true,
    replayed: false,
    result: {
      saved: true,
      applied: false,
      path: "/srv/app/portreeve.stack.json",
      fingerprint: "f".repeat(64),
      revision: "a".repeat(64),
      error: { code: "conflict", message: "Stack root overlaps." },
    },
  }));
  exec.issue("stack.apply", { type: "stack-root", id: "/srv/app" });
  const e = await exec.call("stack_apply_execute", { receiptId: RECEIPT, stackRoot: "/srv/app" });
  assert.match(e.text, /"applied":false.*"message":"Stack root overlaps\."/);
  assert.equal(
    (e.data?.result as { error: unknown }).error !== undefined,
    true,
    "loose result keeps the error",
  );
});

Deno.test("settings and prune summaries", async () => {
  const settings = scripted(() =>
    preview("settings.update", { type: "settings", id: "global" }, {
      updates: { automaticPortRanges: [{ start: 20000, end: 20999 }], excludedPorts: [3000] },
    }, {
      current: { automaticPortRanges: [{ start: 10240, end: 49151 }], excludedPorts: [3001] },
    })
  );
  const s = await settings.call("settings_update_preview", {
    updates: { automaticPortRanges: [{ start: 20000, end: 20999 }], excludedPorts: [3000] },
  });
  assert.match(
    String(s.data?.summary),
    /^Change automaticPortRanges 10240–49151 → 20000–20999; excludedPorts: add 3000, remove 3001\./,
  );
  // Every port named: consecutive ones as one run.
  assert.equal(showSetting([...Array.from({ length: 20 }, (_, i) => i + 1), 40]), "1–20, 40");

  const prune = scripted(() =>
    preview("stacks.prune", { type: "stack-collection", id: "global" }, {}, {
      candidates: [],
      blocked: [{
        stack: { id: RECEIPT, project: "shop", stackRoot: "/gone" },
        reasons: ["pending-activation"],
      }],
    })
  );
  const p = await prune.call("stacks_prune_preview", { olderThanMilliseconds: 0 });
  assert.deepEqual(p.data?.blockers, [`shop at /gone (stack ${RECEIPT}): pending-activation`]);
  assert.match(String(p.data?.summary), /^No stack to prune\. Blocked: shop at \/gone/);
  // Blocked stacks are not deleted: with no candidate there is nothing to approve.
  assert.equal(p.data?.approval ?? null, null);
  assert.equal(p.data?.nextStep ?? null, null, "nothing to do: no next step");
});

Deno.test("a prune preview with nothing to prune says so and asks for no approval", async () => {
  for (
    const [tool, action, empty] of [
      ["claims_prune_preview", "claims.prune", { candidates: [], skipped: [] }],
      ["stacks_prune_preview", "stacks.prune", { candidates: [], blocked: [] }],
    ] as const
  ) {
    const daemon = scripted(() =>
      preview(action, { type: "collection", id: "global" }, {}, { dryRun: true, ...empty })
    );
    const r = await daemon.call(tool, { olderThanMilliseconds: 0 });
    assert.equal(r.isError, false, r.text);
    assert.match(r.data?.summary as string, /^No (claim|stack) to prune\.$/);
    assert.equal(r.data?.nextStep ?? null, null, "nothing to do: no next step");
    assert.equal(r.data?.approval ?? null, null, "no approval request in the data");
    assert.doesNotMatch(r.text, /approv(e it|al)|explicitly/, r.text);
  }
});
