/**
 * What `serve`, `config` and `doctor` accept, and what they report as this bridge's identity:
 * the toolsets (and which kinds of tool each registers), the approval modes, the label
 * alphabet. Each command words its own errors; the values and rules live only here, and the
 * catalogue reads the same ones.
 */

/** Identity of this bridge, reported to hosts and to the daemon (and by `--version`). */
export const SERVER_NAME = "portreeve";
export const SOFTWARE_VERSION = "0.1.0";
export const PRODUCT = "portreeve-mcp";

/** Toolsets, from smallest to largest (`serve --toolset`). */
export const TOOLSETS = ["read", "coordinate", "full"] as const;
export type Toolset = typeof TOOLSETS[number];

/**
 * What a tool does to the world. It fixes the MCP annotations and the smallest toolset that
 * registers the tool: read → `read`; mutation → `coordinate`; preview/execute → `full`.
 */
export type ToolKind = "read" | "mutation" | "preview" | "execute";

const TOOLSET_OF: Record<ToolKind, Toolset> = {
  read: "read",
  mutation: "coordinate",
  preview: "full",
  execute: "full",
};

/** The smallest toolset that registers a tool of this kind. */
export function toolsetOf(kind: ToolKind): Toolset {
  return TOOLSET_OF[kind];
}

/** Whether a tool of this kind is registered under `toolset`. */
export function inToolset(kind: ToolKind, toolset: Toolset): boolean {
  return TOOLSETS.indexOf(TOOLSET_OF[kind]) <= TOOLSETS.indexOf(toolset);
}

/**
 * How a consequential change gets a person's approval (`serve --approval`). `required` (the
 * default): only a person's yes through MCP lets it through, so a host that cannot ask gets a
 * refusal; `auto` (a person's explicit opt-in in the host entry): ask through the host when it
 * can, else the host's own tool prompt is the only check; `off`: never ask (trusted scripts).
 */
export const APPROVAL_MODES = ["required", "auto", "off"] as const;
export type ApprovalMode = typeof APPROVAL_MODES[number];
export const DEFAULT_APPROVAL_MODE: ApprovalMode = "required";
/** How long a question waits for the person (never past the receipt's expiry). */
export const DEFAULT_APPROVAL_MS = 120_000;

/**
 * How long one tool call may wait for the daemon in all (`serve --daemon-wait-ms`). PortReeve
 * serves one request at a time, about a second per change, so a daemon shared by many agents is
 * slow by nature: the bound is long, and the host's own cancel normally ends a wait first.
 */
export const DEFAULT_DAEMON_WAIT_MS = 600_000;

/**
 * Bridge labels travel to the daemon in every POST's origin and into host configs and shell
 * commands, so they are kept to a safe, short alphabet.
 */
const LABEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The trimmed label, or undefined when it breaks `LABEL_PATTERN`. */
export function labelOf(raw: string): string | undefined {
  const label = raw.trim();
  return LABEL_PATTERN.test(label) ? label : undefined;
}

/** `value` typed as one of `allowed`, or undefined when it is none of them. */
export function choiceOf<T extends string>(value: string, allowed: readonly T[]): T | undefined {
  return allowed.find((choice) => choice === value);
}
