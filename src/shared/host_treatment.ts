/**
 * What the bridge does differently for each host it knows, all from the host profiles:
 *
 * - how large a result the host shows its model whole. Hosts cut long tool results (Codex keeps
 *   about 12 KB, head and tail; Gemini CLI the first 8,000 and last 32,000 characters), and what
 *   a host cut is lost to its model without a word. Each profile states its limit
 *   (`resultLimitBytes`) in bytes of what the host shows, and how it shows a result
 *   (`resultShownAs`: Cline shows the envelope twice), and the bridge fits every result and
 *   page of a connection to both;
 * - whether a failed call is flagged with `isError` (`flagsToolErrors`): Gemini CLI replaces a
 *   flagged error with its own line that echoes the call and the raw result, so it gets its
 *   errors unflagged (src/results/result.ts says how);
 * - the words of the approval question's yes and no, which match what the host's widget shows
 *   (src/profiles/approval_words.ts says which widget each host draws).
 *
 * `serve` hands the bridge this table by the name each host gives itself (`clientInfo.name`: in
 * MCP's `initialize`, or on the 2026-07-28 era in each request's `_meta`). A name is matched
 * exactly (case aside): `gemini-cli-mcp-client-x` is not Gemini CLI. The one pattern is for a
 * host that names itself after its entry (Qwen Code: a fixed start, then whatever the person
 * called the entry), which must be followed by at least one character. A host of no known
 * name gets the smallest limit any profile that shows one copy of the envelope states (its pages
 * are shorter, never cut there), flagged errors (the MCP default) and words that fit any widget.
 */

/**
 * How a host shows a tool result to its model: one copy of the envelope (the text block or
 * structuredContent), or the whole result as JSON, the envelope twice and once escaped
 * (Cline). The bridge measures results in that form (src/results/shown_form.ts).
 */
export type ResultShownAs = "envelope" | "result-json";

export interface HostTreatment {
  /** The host's profile id (`--host` NAME), named in next steps; unset for an unknown host. */
  host?: string;
  /** The bytes the host shows its model whole, of what it shows (`resultShownAs`). */
  resultLimitBytes: number;
  /** How it shows a result; unset: one copy of the envelope. */
  resultShownAs?: ResultShownAs;
  /** Whether a failed call goes to it with `isError: true`. */
  flagsToolErrors: boolean;
  /** How its widget shows the approval question's yes/no field, so the words match. */
  answerWidget: AnswerWidget;
}

/**
 * How a host draws the approval question's one boolean: a checkbox and Accept (Claude Code),
 * a "True / False" list (Codex), a "Yes / No" list (Copilot CLI), or not known.
 */
export type AnswerWidget = "checkbox" | "true_false" | "yes_no" | "unknown";

export interface HostTreatments {
  /** A host's `clientInfo.name` (lower case) → how the bridge treats it, matched exactly. */
  byClient: Readonly<Record<string, HostTreatment>>;
  /**
   * For hosts that name themselves after their entry: the start of the name (lower case), which
   * the entry's name completes → how the bridge treats that host.
   */
  byEntryNamed?: Readonly<Record<string, HostTreatment>>;
  /** For any other host: the smallest limit a profile states, and flagged errors. */
  fallback: HostTreatment;
}

/** How the bridge treats the host that named itself `client` (undefined: it gave no name). */
export function treatmentFor(
  treatments: HostTreatments,
  client: string | undefined,
): HostTreatment {
  const name = client?.toLowerCase();
  if (name === undefined) return treatments.fallback;
  if (Object.hasOwn(treatments.byClient, name)) return treatments.byClient[name];
  for (const [start, treatment] of Object.entries(treatments.byEntryNamed ?? {})) {
    if (name.length > start.length && name.startsWith(start)) return treatment;
  }
  return treatments.fallback;
}
