/** What doctor says about approval: which mode a host gets, and what its user will see. */
import type { ApprovalMode } from "../approval_modes.ts";

/** What each known host does with our question (public reports, late 2026). */
const HOST_ASKS: Record<string, string> = {
  claude:
    'Claude Code declares MCP elicitation and shows the question in its interactive terminal; `claude -p` and SDK runs without an elicitation handler answer "decline" unseen, so executes there end in portreeve_approval_declined',
  codex:
    'Codex declares MCP elicitation; under approval policy "never" (e.g. `codex exec`) it declines form questions unseen, so executes there end in portreeve_approval_declined',
  generic:
    "hosts that declare MCP form elicitation show the question; others leave the asking to the agent",
};

export function approvalReport(mode: ApprovalMode, host: string): string {
  const hostFacts = HOST_ASKS[host] ?? HOST_ASKS.generic;
  switch (mode) {
    case "auto":
      return `auto: each *_execute asks the user through the host before anything reaches the daemon when the host can ask; otherwise the preview tells the agent to ask (${hostFacts})`;
    case "required":
      return `required: each *_execute asks the user through the host, and is refused with portreeve_approval_unavailable when the host cannot ask (${hostFacts})`;
    case "off":
      return "off: the bridge never asks; the preview tells the agent to ask the user, and nothing checks that it did";
  }
}
