/**
 * The one response builder. Hosts disagree about which half of a result reaches the model:
 * on success Claude Code and Codex read structuredContent and Gemini CLI only the text; on
 * error Claude Code reads only the text, Codex falls back to it, and Gemini CLI serialises the
 * whole result. So:
 *
 * - a success carries `structuredContent` `{ok:true, data}` and one text block: a one-line
 *   summary, `\n`, then that same envelope as compact JSON;
 * - an error carries only its text block (no structuredContent, so no host shows it twice),
 *   `isError: true`, in lines a model reads at a glance and a program splits as easily:
 *
 *     <code> (retryable|not retryable): <message on one line>
 *     Next step: <what to do now>
 *     Details: <details as compact JSON>        (left out when there are none)
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { BridgeError, Codes } from "../errors.ts";
import { nextStepFor } from "../error_codes.ts";
import { CustodyError } from "../custody/mod.ts";

export interface ErrorEnvelope {
  code: string;
  message: string;
  retryable: boolean;
  /** The one thing to do now; always present, so a model never has to guess. */
  nextStep: string;
  /** Left out when empty. */
  details?: Record<string, unknown>;
}

export type Envelope =
  | { ok: true; data: unknown }
  | { ok: false; error: ErrorEnvelope };

export function success(data: unknown, summary: string): CallToolResult {
  const envelope = { ok: true, data };
  return {
    content: [{ type: "text", text: `${oneLine(summary)}\n${JSON.stringify(envelope)}` }],
    structuredContent: envelope as Record<string, unknown>,
  };
}

export function failure(error: BridgeError): CallToolResult {
  return { content: [{ type: "text", text: errorText(errorEnvelope(error)) }], isError: true };
}

/** An error's text block (see the top of this file). */
export function errorText(error: ErrorEnvelope): string {
  const head = `${error.code} (${error.retryable ? "retryable" : "not retryable"}): ${
    oneLine(error.message)
  }`;
  const details = error.details ? `\nDetails: ${JSON.stringify(error.details)}` : "";
  return `${head}\nNext step: ${error.nextStep}${details}`;
}

const ERROR_TEXT =
  /^(\S+) \((retryable|not retryable)\): (.*)\nNext step: (.*?)(?:\nDetails: (.*))?$/s;

/** Reads an error's text block back into its envelope; undefined if it is not one. */
export function parseErrorText(text: string): ErrorEnvelope | undefined {
  const match = ERROR_TEXT.exec(text);
  if (match === null) return undefined;
  const [, code, retryable, message, nextStep, details] = match;
  return {
    code,
    message,
    retryable: retryable === "retryable",
    nextStep,
    ...(details === undefined ? {} : { details: JSON.parse(details) }),
  };
}

export function errorEnvelope(error: BridgeError): ErrorEnvelope {
  const details = error.details;
  return {
    code: error.code,
    message: error.message,
    retryable: error.retryable,
    nextStep: nextStepFor(error.code, error.details),
    ...(Object.keys(details).length > 0 ? { details } : {}),
  };
}

/**
 * The envelope of a result, for programs (doctor, tests): a success's structuredContent, an
 * error's text read back. Throws when the result has neither shape.
 */
export function envelopeOf(result: object): Envelope {
  const structured: unknown = Reflect.get(result, "structuredContent");
  if (isRecord(structured)) return structured as Envelope;
  const content: unknown = Reflect.get(result, "content");
  const first: unknown = Array.isArray(content) ? content[0] : undefined;
  const text = isRecord(first) && typeof first.text === "string" ? first.text : undefined;
  const error = text === undefined ? undefined : parseErrorText(text);
  if (error) return { ok: false, error };
  throw new Error(`not a tool result envelope: ${JSON.stringify(result).slice(0, 300)}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A summary must stay one line: the JSON after the newline is what programs parse. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ");
}

/**
 * Custody errors already carry a stable code; anything else that is not a `BridgeError` is
 * our bug: say so without leaking a stack.
 */
export function asBridgeError(error: unknown): BridgeError {
  if (error instanceof BridgeError) return error;
  if (error instanceof CustodyError) {
    return new BridgeError(error.code, error.message, error.retryable, error.details);
  }
  return new BridgeError(
    Codes.internal,
    "The bridge hit an unexpected error; its stderr log has the details.",
    false,
  );
}
