/**
 * What each real host does with the bridge's approval question when it runs non-interactively:
 * whether it declares elicitation, how it answers, what its model then reads, and that the
 * daemon gets an execute only after a yes or, in `auto` (the opt-in), from a host that cannot
 * ask — never by default. The profile's `asksThroughMcp` must be what the host declared.
 * `HOSTS_UPDATE_DOCS=1` rewrites docs/approval.md's table of it.
 */
import assert from "node:assert/strict";
import type { ApprovalMode } from "../../src/shared/options.ts";
import { ALL_HOSTS } from "./all_hosts.ts";
import { findHost } from "../../src/profiles/hosts.ts";
import { APPROVAL_STEP, type ApprovalSession, approvalSession } from "./approval_session.ts";
import {
  AT_ONCE_MS,
  checkApprovalTable,
  type HostApproval,
  hostCanAskSeen,
  type Outcome,
  outcomeSeen,
  printApprovalFigures,
  routeSeen,
} from "./approval_report.ts";
import { plain, retryableShown, showsNextStep } from "./visible.ts";

/** The facts of each pinned host version, as measured; a new version must re-earn them. */
const FACTS: Record<string, { declares: boolean; answer: "accept" | "decline" | "cancel" | null }> =
  {
    // Print mode: it declares form elicitation, then cancels every question unseen.
    claude: { declares: true, answer: "cancel" },
    // `exec` with approvals bypassed: it declares form and url elicitation, then declines.
    codex: { declares: true, answer: "decline" },
    // It never declares elicitation, so it is never asked.
    gemini: { declares: false, answer: null },
    opencode: { declares: false, answer: null },
    // `-p` with --allow-all-tools, MCP 2026-07-28: it answers input_required with a decline.
    copilot: { declares: true, answer: "decline" },
    qwen: { declares: false, answer: null },
    cline: { declares: false, answer: null },
  };

/**
 * How each host that asks words the yes of its boolean widget (a checkbox and Accept in Claude
 * Code, "1. True / 2. False" in Codex, "Yes / No" in Copilot CLI): the question the real host
 * was sent must use those words, and none of another widget's.
 */
const WIDGET_WORDS: Record<string, { yes: RegExp; not: RegExp }> = {
  claude: { yes: /^Tick the box, then Accept, to /, not: /\b(true|false)\b/i },
  codex: { yes: /^True to .*; False to /, not: /\b(yes|no|tick)\b/i },
  copilot: { yes: /^Yes to .*; No to /, not: /\b(true|false|tick)\b/i },
};

/** The default first, then the opt-in a person can write in the entry. */
const MODES: readonly ApprovalMode[] = ["required", "auto"];

/** What the bridge's rules make of a host's facts in one mode. */
function expectedOutcome(
  fact: { declares: boolean; answer: string | null },
  mode: ApprovalMode,
): Outcome {
  if (fact.declares) {
    return fact.answer === "accept" ? "executed" : "portreeve_approval_declined";
  }
  return mode === "auto" ? "executed" : "portreeve_approval_unavailable";
}

function codeSent(s: ApprovalSession): string | null {
  const reply = JSON.stringify(s.executeReply ?? null);
  return reply.match(/portreeve_approval_(declined|unavailable)/)?.[0] ??
    (/"ok":true/.test(reply) ? "executed" : null);
}

for (const adapter of ALL_HOSTS) {
  const host = adapter.pkg.host;
  const fact = FACTS[host];

  for (const mode of MODES) {
    const s = () => approvalSession(adapter, mode);

    Deno.test(`${host} (${mode}): elicitation ${fact.declares ? "is" : "is not"} declared in initialize`, async () => {
      const session = await s();
      assert.ok(session.protocolVersion !== null, `${host} sent no initialize through the tap`);
      assert.equal(session.declaredElicitation, fact.declares);
      // What config and doctor tell the person about this host is what it declared.
      assert.equal(findHost(host)?.asksThroughMcp, fact.declares, `${host}'s profile`);
      // The bridge read the same from the handshake, and the model is told so.
      assert.equal(hostCanAskSeen(session), fact.declares);
      const route = fact.declares
        ? "host_asks_user"
        : mode === "auto"
        ? "agent_asks_user"
        : "unavailable";
      assert.equal(routeSeen(session), route);
    });

    Deno.test(`${host} (${mode}): the host's answer to the question is ${fact.answer ?? "none"}`, async () => {
      const session = await s();
      assert.deepEqual(session.answers, fact.answer === null ? [] : [fact.answer]);
      // The words of its yes and no are those of the options this host shows.
      for (const form of session.forms) {
        const description = String(
          (form as { requestedSchema?: { properties?: { approve?: { description?: string } } } })
            .requestedSchema?.properties?.approve?.description,
        );
        const words = WIDGET_WORDS[host];
        assert.ok(words, `${host} asks, so its widget's words are known`);
        assert.match(description, words.yes, host);
        assert.doesNotMatch(description, words.not, host);
      }
      assert.equal(session.forms.length, fact.declares ? 1 : 0);
      // Non-interactive: the answer comes back at once, so no person ever saw the question.
      for (const ms of session.answerMs) assert.ok(ms < AT_ONCE_MS, `${host} took ${ms} ms`);
    });

    Deno.test(`${host} (${mode}): the model reads ${expectedOutcome(fact, mode)}`, async () => {
      const session = await s();
      const expected = expectedOutcome(fact, mode);
      assert.equal(outcomeSeen(session), expected, session.results[APPROVAL_STEP.execute]);
      assert.equal(codeSent(session), expected, "the host showed what the bridge sent");
      if (expected !== "executed") {
        const shown = plain(session.results[APPROVAL_STEP.execute] ?? "");
        assert.ok(showsNextStep(shown), `${host}: no next step:\n${shown}`);
        assert.match(shown, /nothing was sent to the daemon/);
        assert.equal(retryableShown(shown), false, `${host}: not retryable:\n${shown}`);
        // A host that cannot ask: the model is told the person's opt-in, to pass on.
        if (!fact.declares) assert.match(shown, /--approval auto/);
      }
    });

    Deno.test(`${host} (${mode}): the daemon gets the execute only after a yes, or from a host that cannot ask in the auto opt-in`, async () => {
      const session = await s();
      const allowed = session.answers.includes("accept") ||
        (!session.declaredElicitation && mode === "auto");
      assert.equal(session.daemonExecutes, allowed ? 1 : 0);
      assert.equal(session.claimStillExists, !allowed);
      if (mode === "required") assert.equal(session.daemonExecutes, 0);
      // The diagnostics and the preview did reach it: the rig was live throughout.
      assert.ok(session.daemonRequests >= 2, `only ${session.daemonRequests} daemon requests`);
    });
  }
}

async function allRows(): Promise<HostApproval[]> {
  const rows: HostApproval[] = [];
  for (const adapter of ALL_HOSTS) {
    rows.push({
      adapter,
      auto: await approvalSession(adapter, "auto"),
      required: await approvalSession(adapter, "required"),
    });
  }
  return rows;
}

Deno.test("figures: approval per host and mode", async () => {
  printApprovalFigures(await allRows());
});

Deno.test("docs/approval.md host table is what the hosts did", async () => {
  await checkApprovalTable(await allRows());
});
