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

/** Whether an error the model was shown says it is retryable (true/false), or null. */
export function retryableShown(visible: string): boolean | null {
  const line = plain(visible).match(/\bportreeve_[a-z_]+ \((not )?retryable\):/);
  return line === null ? null : line[1] === undefined;
}

/** The next step the model can read (a preview's JSON `nextStep`, an error's line), or null. */
export function nextStepShown(visible: string): string | null {
  const text = plain(visible);
  return text.match(/"nextStep"\s*:\s*"((?:[^"\\]|\\.){10,})"/)?.[1] ??
    text.match(/\nNext step: ([^\n"]{10,})/)?.[1] ?? null;
}

/** `text` as it sits in `visible`: as written, or JSON-escaped once or twice; null if absent. */
export function shownForm(visible: string, text: string): string | null {
  let form = text;
  for (let level = 0; level < 3; level++) {
    if (visible.includes(form)) return form;
    form = JSON.stringify(form).slice(1, -1);
  }
  return null;
}

/** How many times `part` occurs in what the model read (escapes undone). */
export function occurrences(visible: string, part: string): number {
  return plain(visible).split(part).length - 1;
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
  // Some hosts show the text block and then structuredContent, so the data arrives twice.
  const copies = text.split(JSON.stringify(truth.structured)).length - 1;
  return what + (copies > 1 ? ` (the envelope ${copies} times)` : "") + wrapping(text);
}

export function describeError(visible: string, truth: Truth, code: string): string {
  const text = plain(visible);
  const times = occurrences(visible, summaryOf(truth)) +
    occurrences(visible, `"code":"${code}"`);
  const what = times === 0
    ? "the error not recognisably"
    : `the error text ${times === 1 ? "once" : `${times} times`}`;
  const parts = [
    retryableShown(text) !== null || showsBoolean(text, "retryable") ? "retryable" : null,
    showsNextStep(text) ? "next step" : null,
  ].filter((part) => part !== null);
  return `${what}${parts.length > 0 ? ` (with ${parts.join(", ")})` : ""}${wrapping(text)}`;
}

function wrapping(text: string): string {
  if (text.includes("<untrusted_context>")) return ", inside `<untrusted_context>`";
  if (/^Wall time: /.test(text)) return ", after `Wall time: … Output:`";
  if (/^MCP tool '[^']+' reported tool error/.test(text)) {
    return ", inside the host's own `MCP tool … reported tool error` line";
  }
  return "";
}

/** What a host did with a result longer than its budget, in words for the README. */
export function describeLongResult(visible: string, sentChars: number): string {
  // Hosts that wrap a result in more than they show of it say so in their own words.
  if (/^(?:MCP server '[^']+': )?Output too large to read at once \(/.test(visible)) {
    return "saved to a file; the model sees only the path and its size";
  }
  if (/\.\.\.\[truncated \d+ chars\]\.\.\./.test(visible)) {
    return `cut to about ${Math.round(visible.length / 1000)} KB, head and tail kept`;
  }
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
