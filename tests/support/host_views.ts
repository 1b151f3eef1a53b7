/**
 * What each host shows its model of one tool result (docs/hosts.md, measured with the real
 * programs): on success Claude Code and Codex show structuredContent as JSON and Gemini CLI
 * only the text block; on error (`isError`) Claude Code shows the text block only, Codex
 * structuredContent (its text when there is none) and Gemini CLI the whole result serialised.
 * The reference bridge's results carry no `isError`, so every host reads one copy of their
 * JSON. The host's own wrapping (`Wall time: …`, `<untrusted_context>`) is not counted.
 */
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

/** Bytes of `result` as each host shows it. */
export function hostBytes(result: ShownResult): Record<Host, number> {
  return Object.fromEntries(
    VIEW_HOSTS.map((host) => [host, byteLength(hostView(host, result))]),
  ) as Record<Host, number>;
}
