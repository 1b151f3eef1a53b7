/**
 * What each host did with the bridge's approval question, read from its approval sessions,
 * and docs/approval.md's table of it.
 */
import type { HostAdapter } from "./hosts.ts";
import type { ApprovalSession } from "./approval_session.ts";
import { APPROVAL_STEP } from "./approval_session.ts";
import { checkDocBlock, HOST_NAMES } from "./report.ts";
import { plain } from "./visible.ts";

/** What the model read as the execute's outcome. */
export type Outcome =
  | "executed"
  | "portreeve_approval_declined"
  | "portreeve_approval_unavailable"
  | "not observed";

export function outcomeSeen(s: ApprovalSession): Outcome {
  const shown = s.results[APPROVAL_STEP.execute];
  if (shown === undefined) return "not observed";
  const text = plain(shown);
  const code = text.match(/portreeve_approval_(declined|unavailable)/)?.[0];
  if (code === "portreeve_approval_declined" || code === "portreeve_approval_unavailable") {
    return code;
  }
  return /"ok":true/.test(text) && /"result":\{"deleted":true/.test(text)
    ? "executed"
    : "not observed";
}

/** What the bridge told the model it learnt from the handshake (`portreeve_diagnostics`). */
export function hostCanAskSeen(s: ApprovalSession): boolean | null {
  const shown = s.results[APPROVAL_STEP.diagnostics];
  const found = shown === undefined ? null : plain(shown).match(/"hostCanAsk":(true|false)/);
  return found ? found[1] === "true" : null;
}

/** The preview's `approval` route as the model read it. */
export function routeSeen(s: ApprovalSession): string | null {
  const shown = s.results[APPROVAL_STEP.preview];
  return shown === undefined ? null : plain(shown).match(/"approval":"([a-z_]+)"/)?.[1] ?? null;
}

function answerWords(s: ApprovalSession): string {
  if (!s.declaredElicitation && s.answers.length === 0) return "never asked (cannot ask)";
  if (s.answers.length === 0) return "never asked";
  return s.answers.map((answer, i) => `\`${answer}\`, ${promptness(s.answerMs[i])}`).join("; ");
}

/** Whether the answer came back at once (nobody could have read the question) or later. */
export const AT_ONCE_MS = 5_000;
function promptness(ms: number | undefined): string {
  if (ms === undefined) return "never";
  return ms < AT_ONCE_MS
    ? `at once (< ${AT_ONCE_MS / 1000} s)`
    : `after ${Math.round(ms / 1000)} s`;
}

function outcomeWords(s: ApprovalSession): string {
  const outcome = outcomeSeen(s);
  const sent = s.daemonExecutes === 0
    ? "daemon got nothing"
    : `daemon got ${s.daemonExecutes} execute${s.daemonExecutes === 1 ? "" : "s"}`;
  const what = outcome === "executed" ? "the execute's success" : `\`${outcome}\``;
  return `${what}; ${sent}`;
}

function declaredWords(s: ApprovalSession): string {
  const version = s.protocolVersion ?? "?";
  return s.declaredElicitation
    ? `yes: \`${JSON.stringify(s.elicitationCapability)}\` (${version})`
    : `no (${version})`;
}

export interface HostApproval {
  adapter: HostAdapter;
  auto: ApprovalSession;
  required: ApprovalSession;
}

export function approvalTable(rows: readonly HostApproval[]): string {
  return [
    "| Host | Version tested | Run as | Declares `elicitation` (protocol) | Its answer to the question | " +
    "`required` (default): the model sees | `auto` (opt-in): the model sees |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map(({ adapter, auto, required }) =>
      `| ${
        HOST_NAMES[required.host] ?? required.host
      } | ${required.version} | ${adapter.runAs} | ` +
      `${declaredWords(required)} | ${answerWords(required)} | ${outcomeWords(required)} | ` +
      `${outcomeWords(auto)} |`
    ),
  ].join("\n");
}

export async function checkApprovalTable(rows: readonly HostApproval[]): Promise<void> {
  await checkDocBlock("docs/approval.md", "approval-hosts", approvalTable(rows));
}

export function printApprovalFigures(rows: readonly HostApproval[]): void {
  const lines = [
    "",
    "host | mode | declares elicitation | answers in ms | model saw | daemon requests (delete executes)",
  ];
  for (const { auto, required } of rows) {
    for (const s of [required, auto]) {
      const answers = s.answers.length === 0
        ? "-"
        : `${s.answers.join(",")} in ${s.answerMs.join(",")} ms`;
      lines.push(
        `${s.host} ${s.version} | ${s.mode} | ${s.declaredElicitation} | ${answers} | ` +
          `${outcomeSeen(s)} | ${s.daemonRequests} (${s.daemonExecutes})`,
      );
    }
  }
  console.log(lines.join("\n"));
}
