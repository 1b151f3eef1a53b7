/** What doctor says about approval: which mode a host gets, and what its user will see. */
import type { ApprovalMode } from "../shared/options.ts";
import { Codes } from "../shared/errors.ts";
import { findHost } from "../profiles/mod.ts";

/** What each known host does with our question (measured by `deno task test:hosts`). */
const HOST_ASKS: Record<string, string> = {
  claude:
    `Claude Code declares MCP elicitation and shows the question in its interactive terminal; \`claude -p\` (2.1.197) answers "cancel" unseen, so executes there end in ${Codes.approvalDeclined}`,
  codex:
    `Codex declares MCP elicitation; \`codex exec\` (0.171.0) declines the question unseen, so executes there end in ${Codes.approvalDeclined}`,
  gemini:
    "Gemini CLI (0.61.0) does not declare MCP elicitation: in auto mode the preview tells the agent to ask the user, and --approval required refuses every execute",
  generic:
    "hosts that declare MCP form elicitation show the question; others leave the asking to the agent",
};

export function approvalReport(mode: ApprovalMode, host: string): string {
  const hostFacts = HOST_ASKS[host] ?? profileFacts(host) ?? HOST_ASKS.generic;
  switch (mode) {
    case "auto":
      return `auto: each *_execute asks the user through the host before anything reaches the daemon when the host can ask; otherwise the preview tells the agent to ask (${hostFacts})`;
    case "required":
      return `required: each *_execute asks the user through the host, and is refused with ${Codes.approvalUnavailable} when the host cannot ask (${hostFacts})`;
    case "off":
      return "off: the bridge never asks; the preview tells the agent to ask the user, and nothing checks that it did";
  }
}

/** What a host's profile says about asking through MCP, for hosts without a measured line. */
function profileFacts(host: string): string | undefined {
  const profile = findHost(host);
  if (profile === undefined || profile.asksThroughMcp === null) return undefined;
  return profile.asksThroughMcp
    ? `${profile.label} declares MCP elicitation and shows the bridge's question`
    : `${profile.label} does not declare MCP elicitation, so it cannot show the bridge's question`;
}
