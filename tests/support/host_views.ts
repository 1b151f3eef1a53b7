/**
 * What each host shows its model of one tool result (docs/hosts.md, measured with the real
 * programs): on success Claude Code and Codex show structuredContent as JSON and Gemini CLI
 * only the text block; on a flagged error (`isError`) Claude Code shows the text block only,
 * Codex structuredContent (its text when there is none) and Gemini CLI the whole result
 * serialised. The bridge sends Gemini CLI its errors unflagged (its profile's
 * `flagsToolErrors`, see `sentTo`), so it shows their text block alone. The reference bridge's results carry
 * no `isError`, so every host reads one copy of their JSON. The host's own wrapping
 * (`Wall time: …`, `<untrusted_context>`) is not counted.
 */
import { findHost } from "../../src/profiles/hosts.ts";

export type Host = "claude" | "codex" | "gemini";
export const VIEW_HOSTS: readonly Host[] = ["claude", "codex", "gemini"];

/** The parts of a tools/call result that hosts read. */
export interface ShownResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
}

const utf8 = new TextEncoder();
export const byteLength = (text: string): number => utf8.encode(text).length;

function textOf(result: ShownResult): string {
  const content = Array.isArray(result.content) ? result.content : [];
  return content.map((part) =>
    typeof part === "object" && part !== null && typeof Reflect.get(part, "text") === "string"
      ? Reflect.get(part, "text") as string
      : ""
  ).join("\n");
}

/** The text `host` puts in its model's context for `result`. */
export function hostView(host: Host, result: ShownResult): string {
  const structured = result.structuredContent === undefined
    ? undefined
    : JSON.stringify(result.structuredContent);
  if (result.isError === true) {
    if (host === "claude") return textOf(result);
    if (host === "codex") return structured ?? textOf(result);
    // The result is serialised into one string: the text once escaped, then its JSON.
    return JSON.stringify(textOf(result)).slice(1, -1) + (structured ?? "");
  }
  if (host === "gemini") return textOf(result);
  return structured ?? textOf(result);
}

/**
 * `result`, made for a host of no known name, as the bridge sends it to `host`: a flagged error
 * goes unflagged to a host whose profile says `flagsToolErrors: false` (the same text block, and
 * structuredContent `{ok: false}` alone, as `failure` writes it).
 */
export function sentTo(host: Host, result: ShownResult): ShownResult {
  if (result.isError !== true || findHost(host)?.flagsToolErrors !== false) return result;
  return { content: result.content, structuredContent: { ok: false } };
}

/** Bytes of `result` as each host shows it, sent to each host its way (`sentTo`). */
export function hostBytes(result: ShownResult): Record<Host, number> {
  return Object.fromEntries(
    VIEW_HOSTS.map((host) => [host, byteLength(hostView(host, sentTo(host, result)))]),
  ) as Record<Host, number>;
}
