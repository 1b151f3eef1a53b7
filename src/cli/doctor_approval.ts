/** What doctor says about approval: what a person gets on the host, in the mode checked. */
import type { ApprovalMode } from "../shared/options.ts";
import { Codes } from "../shared/errors.ts";
import { findHost } from "../profiles/hosts.ts";
import { approvalWords } from "../profiles/approval_words.ts";

/**
 * What hosts that ask do when they run unattended, measured by `deno task test:hosts`: they
 * answer the question themselves, so nobody saw it and nothing changed.
 */
const UNATTENDED: Record<string, string> = {
  claude:
    `Run non-interactively (\`claude -p\`, 2.1.197) it answers "cancel" unseen, so changes there end in ${Codes.approvalDeclined}.`,
  codex:
    `Run as \`codex exec\` (0.171.0) it answers "decline" unseen, so changes there end in ${Codes.approvalDeclined}.`,
  copilot:
    `Run as \`copilot -p\` (1.0.102) it answers "decline" unseen, so changes there end in ${Codes.approvalDeclined}.`,
};

export function approvalReport(mode: ApprovalMode, host: string): string {
  const profile = findHost(host) ?? findHost("generic")!;
  const words = approvalWords(mode, profile);
  const unattended = mode === "off" ? undefined : UNATTENDED[profile.id];
  return unattended === undefined ? words : `${words} ${unattended}`;
}
