/**
 * What a person gets, on one host in one `--approval` mode, before a consequential change
 * (signalling a process, deleting records, writing a file, moving a claim, changing settings):
 * the one sentence `config` prints under the entry and `doctor --host` reports, from the
 * profile's `asksThroughMcp`; and how each host that asks draws the question's yes/no field,
 * so the bridge words its yes and no as the person sees them.
 */
import { type ApprovalMode, DEFAULT_APPROVAL_MODE } from "../shared/options.ts";
import type { AnswerWidget } from "../shared/host_treatment.ts";

/**
 * The widget each host that asks through MCP draws for a boolean field, as its program shows
 * it (docs/hosts.md): Claude Code a checkbox with Accept / Decline, Codex "1. True / 2. False",
 * Copilot CLI "Yes / No". Every other host's is not known (words that fit any widget).
 */
const ANSWER_WIDGETS: Readonly<Record<string, AnswerWidget>> = {
  claude: "checkbox",
  codex: "true_false",
  copilot: "yes_no",
};

/** The widget host `id` draws for the approval question's yes/no field. */
export function answerWidget(id: string): AnswerWidget {
  return Object.hasOwn(ANSWER_WIDGETS, id) ? ANSWER_WIDGETS[id] : "unknown";
}

/** Which of the outcomes a person gets, for scripts (`config --json`). */
export type PersonGets =
  /** The host puts the bridge's question to them; nothing changes without their yes. */
  | "asked_through_mcp"
  /** The host cannot ask: every change is refused unless the entry opts into auto. */
  | "refused_unless_auto"
  /** `auto` on a host that cannot ask: the host's own tool prompt is the only check. */
  | "host_tool_prompt"
  /** `off`: nobody asks. */
  | "never_asked"
  /** It depends on the host (generic): asked if it can ask, else as `mode` says. */
  | "depends_on_host";

interface HostAsking {
  label: string;
  asksThroughMcp: boolean | null;
}

export function personGets(mode: ApprovalMode, host: HostAsking): PersonGets {
  if (mode === "off") return "never_asked";
  if (host.asksThroughMcp === null) return "depends_on_host";
  if (host.asksThroughMcp) return "asked_through_mcp";
  return mode === "auto" ? "host_tool_prompt" : "refused_unless_auto";
}

const CHANGE = "each change (signalling a process, deleting records, writing a file, " +
  "moving a claim, changing settings)";
const OPT_IN = "add --approval auto to the entry's arguments, after serve";

/** The sentence for `host` in `mode`, starting with the mode it describes. */
export function approvalWords(mode: ApprovalMode, host: HostAsking): string {
  const flag = mode === DEFAULT_APPROVAL_MODE
    ? `Approval (--approval ${mode}, the default)`
    : `Approval (--approval ${mode})`;
  const name = host.label;
  switch (personGets(mode, host)) {
    case "never_asked":
      return `${flag}: the bridge never asks you; the agent is told to ask you before ${CHANGE}, and nothing checks that it did.`;
    case "asked_through_mcp":
      return `${flag}: ${name} asks you through MCP before ${CHANGE}; nothing changes unless you approve.`;
    case "refused_unless_auto":
      return `${flag}: ${name} cannot ask you through MCP, so ${CHANGE} is refused. To let ${name}'s own tool prompt stand in for the question, ${OPT_IN}.`;
    case "host_tool_prompt":
      return `${flag}: ${name} cannot ask you through MCP, so its own tool prompt is the only check before ${CHANGE}; the agent is told to get your yes first.`;
    case "depends_on_host":
      return mode === "auto"
        ? `${flag}: a host that asks through MCP (form elicitation) asks you before ${CHANGE}; on one that cannot, its own tool prompt is the only check.`
        : `${flag}: a host that asks through MCP (form elicitation) asks you before ${CHANGE}; on one that cannot, every such change is refused. To let such a host's own tool prompt stand in for the question, ${OPT_IN}.`;
  }
}
