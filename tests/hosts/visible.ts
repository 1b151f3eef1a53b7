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

/** Whether the model is told what to do next (a `nextStep` field or a "next step" sentence). */
export function showsNextStep(visible: string): boolean {
  return /next[ _-]?step/i.test(plain(visible));
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
