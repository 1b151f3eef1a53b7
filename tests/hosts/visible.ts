/** Reading a tool result the way a model reads it: one string, whatever the host wrapped it in. */
import type { Truth } from "./session.ts";

/** Undoes one level of JSON string escaping, so fields read the same wherever they sit. */
export function plain(visible: string): string {
  return visible.replaceAll('\\"', '"').replaceAll("\\n", "\n");
}

/** Whether the model can read `field` with a boolean value. */
export function showsBoolean(visible: string, field: string): boolean {
  return new RegExp(`"?${field}"?\\s*[:=]\\s*(true|false)`, "i").test(plain(visible));
}

/** The `nextStep` the model can read (from the JSON it was shown), or null. */
export function nextStepShown(visible: string): string | null {
  return plain(visible).match(/"nextStep"\s*:\s*"((?:[^"\\]|\\.){10,})"/)?.[1] ?? null;
}

/** Whether the model is told what to do next, as data it cannot miss. */
export function showsNextStep(visible: string): boolean {
  return nextStepShown(visible) !== null;
}

export function showsCode(visible: string, code: string): boolean {
  return plain(visible).includes(code);
}

/** The first line of the text block, which the summary (or error line) opens. */
function summaryOf(truth: Truth): string {
  return truth.text.split("\n")[0].trim();
}

/** Which halves of a result reached the model, in words for the README. */
export function describeSuccess(visible: string, truth: Truth): string {
  const text = plain(visible);
  const summary = text.includes(summaryOf(truth));
  const json = text.includes(JSON.stringify(truth.structured));
  const what = summary && json
    ? "summary line + whole JSON envelope"
    : json
    ? "whole JSON envelope (structuredContent)"
    : summary
    ? "summary line only (no data)"
    : "neither half recognisably";
  return what + wrapping(text);
}

export function describeError(visible: string, truth: Truth, code: string): string {
  const text = plain(visible);
  const line = text.includes(summaryOf(truth));
  const json = text.includes(`"code":"${code}"`);
  const what = line && json
    ? "error text + JSON envelope"
    : json
    ? "JSON envelope only"
    : line
    ? "error text only"
    : "neither half recognisably";
  const parts = [
    showsBoolean(text, "retryable") ? "retryable" : null,
    showsNextStep(text) ? "next step" : null,
  ].filter((part) => part !== null);
  return `${what}${parts.length > 0 ? ` (with ${parts.join(", ")})` : ""}${wrapping(text)}`;
}

function wrapping(text: string): string {
  if (text.includes("<untrusted_context>")) return ", inside `<untrusted_context>`";
  if (/^Wall time: /.test(text)) return ", after `Wall time: … Output:`";
  return "";
}

/** What a host did with a result longer than its budget, in words for the README. */
export function describeLongResult(visible: string, sentChars: number): string {
  if (visible.length >= sentChars) return "whole";
  if (visible.includes("<persisted-output>")) {
    return "saved to a file; the model sees a 2 KB preview and the path";
  }
  const cut = visible.match(/Showing first ([\d,]+) and last ([\d,]+) characters/);
  if (cut !== null) return `cut to the first ${cut[1]} and last ${cut[2]} characters`;
  if (/tokens truncated/.test(visible)) {
    return `cut to about ${Math.round(visible.length / 1000)} KB, head and tail kept`;
  }
  return `cut to ${visible.length} characters`;
}
