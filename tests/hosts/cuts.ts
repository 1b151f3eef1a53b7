/**
 * How big a result was before its host cut it or saved it to a file, read from the host's own
 * words in what the model was shown; null when the result reached the model whole.
 *
 *   Copilot CLI  "Output too large to read at once (20.2 KB). Saved to: …"
 *   Qwen Code    "<persisted-output>\nOutput too large (27 KB). Full output saved to: …"
 *   Cline        "<head>\n\n...[truncated 56305 chars]...\n\n<tail>"
 *   Claude Code  "<persisted-output>…" (no size; counted as cut of unknown size)
 *
 * Sizes the host rounds to a tenth or a whole KB come back as the smallest byte count they
 * could stand for, so a result is never said to be bigger than it was.
 */
export interface Cut {
  /** The least the whole result could have been, in bytes (UTF-8, or characters for Cline). */
  atLeast: number;
}

export function cutOf(visible: string): Cut | null {
  const kb = visible.match(/Output too large(?: to read at once)? \((\d+(?:\.(\d))?) KB\)/);
  if (kb !== null) {
    const step = kb[2] === undefined ? 0.5 : 0.05;
    return { atLeast: Math.ceil((Number(kb[1]) - step) * 1024) };
  }
  const marker = visible.match(/\s*\.\.\.\[truncated (\d+) chars\]\.\.\.\s*/);
  if (marker !== null) return { atLeast: visible.length - marker[0].length + Number(marker[1]) };
  if (visible.includes("<persisted-output>")) return { atLeast: 0 };
  return null;
}

export const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length;
