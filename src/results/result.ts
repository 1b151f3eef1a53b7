/**
 * The one response builder. Hosts disagree about which half of a result reaches the model:
 * on success Claude Code and Codex read structuredContent and Gemini CLI only the text; on
 * error Claude Code reads only the text and Codex falls back to it. So:
 *
 * - a success carries `structuredContent` `{ok:true, data}` and one text block holding that
 *   same envelope as compact JSON, nothing more: a host shows its model one or the other, and
 *   neither repeats what the other says;
 * - an error carries one text block, in lines a model reads at a glance and a program splits
 *   as easily:
 *
 *     <code> (retryable|not retryable): <message on one line>
 *     Next step: <what to do now>
 *     Custody warning: <the warning as compact JSON>    (only while one stands, see below)
 *     Details: <details as compact JSON>                (left out when there are none)
 *
 *   flagged for most hosts: `isError: true` and no structuredContent, so no host shows it
 *   twice. A host whose profile says `flagsToolErrors: false` (Gemini CLI, which replaces a
 *   flagged error with its own line echoing the call and the raw result) gets it unflagged:
 *   the same text, which is all that host shows, and structuredContent `{ok: false}` alone,
 *   which its MCP client requires of an unflagged result of a tool with an output schema (every
 *   output schema declares `ok`). A program tells an error by `isErrorResult`;
 *
 * - while a credential this bridge holds is at risk (its renewal is late or failed) or has just
 *   lapsed, every result says so, whatever the call was: a success's envelope carries
 *   `custodyWarning` (custody_views.ts); an error has the line above, and its first line ends
 *   with the warning's one-sentence summary. The holder learns it before the lease can expire.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { BridgeError, Codes } from "../shared/errors.ts";
import { isObject } from "../shared/json.ts";
import { DETAILS_READ_BY_NAME, nextStepFor } from "../shared/error_codes.ts";
import { custodyWarningSchema, type CustodyWarningView, warningSummary } from "./custody_views.ts";
import { z } from "zod";

interface ErrorEnvelope {
  code: string;
  message: string;
  retryable: boolean;
  /** The one thing to do now; always present, so a model never has to guess. */
  nextStep: string;
  /** Left out when empty. */
  details?: Record<string, unknown>;
}

type Envelope =
  | { ok: true; data: unknown; custodyWarning?: CustodyWarningView }
  | { ok: false; error: ErrorEnvelope; custodyWarning?: CustodyWarningView };

export function success(data: unknown, warning?: CustodyWarningView): CallToolResult {
  const envelope = { ok: true, data, ...(warning ? { custodyWarning: warning } : {}) };
  return {
    content: [{ type: "text", text: JSON.stringify(envelope) }],
    structuredContent: envelope,
  };
}

/** How an error goes to the host: with any custody warning, flagged (`isError`) or not. */
interface FailureOptions {
  warning?: CustodyWarningView;
  /** False for a host whose profile says `flagsToolErrors: false`; true when unset. */
  flagged?: boolean;
  /** The connected host's profile id, for next steps that name it (`doctor --host NAME`). */
  host?: string;
}

export function failure(
  error: BridgeError,
  { warning, flagged = true, host }: FailureOptions = {},
): CallToolResult {
  const content: CallToolResult["content"] = [
    { type: "text", text: errorText(errorEnvelope(error, host), warning) },
  ];
  return flagged ? { content, isError: true } : { content, structuredContent: { ok: false } };
}

/** Whether a tool result is an error: flagged (`isError`), or unflagged (`ok: false`). */
export function isErrorResult(result: object): boolean {
  if (Reflect.get(result, "isError") === true) return true;
  const structured: unknown = Reflect.get(result, "structuredContent");
  return isObject(structured) && structured.ok === false;
}

/** An error's text block (see the top of this file). */
export function errorText(error: ErrorEnvelope, warning?: CustodyWarningView): string {
  const head = `${error.code} (${error.retryable ? "retryable" : "not retryable"}): ${
    oneLine(error.message)
  }${warning ? ` ${warningSummary(warning)}` : ""}`;
  const custody = warning ? `\nCustody warning: ${JSON.stringify(warning)}` : "";
  const details = error.details ? `\nDetails: ${JSON.stringify(error.details)}` : "";
  return `${head}\nNext step: ${error.nextStep}${custody}${details}`;
}

const ERROR_TEXT =
  /^(\S+) \((retryable|not retryable)\): (.*)\nNext step: (.*?)(?:\nCustody warning: (.*?))?(?:\nDetails: (.*))?$/s;

/** Reads an error's text block back into its envelope; undefined if it is not one. */
export function parseErrorText(text: string): ErrorEnvelope | undefined {
  return parseErrorResult(text)?.error;
}

/** An error's text block read back: the error and any custody warning beside it. */
function parseErrorResult(
  text: string,
): { error: ErrorEnvelope; custodyWarning?: CustodyWarningView } | undefined {
  const match = ERROR_TEXT.exec(text);
  if (match === null) return undefined;
  const [, code, retryable, head, nextStep, custody, detailsText] = match;
  // With a custody warning, the head line ends with its one-sentence summary.
  const message = custody === undefined ? head : head.replace(/ Custody warning: [^\n]*$/, "");
  const details = detailsText === undefined ? undefined : parsedJson(detailsText);
  const warning = custody === undefined
    ? undefined
    : custodyWarningSchema.safeParse(parsedJson(custody));
  if (details !== undefined && !isObject(details)) return undefined;
  if (warning !== undefined && !warning.success) return undefined;
  const error: ErrorEnvelope = {
    code,
    message,
    retryable: retryable === "retryable",
    nextStep,
    ...(details === undefined ? {} : { details }),
  };
  return warning === undefined ? { error } : { error, custodyWarning: warning.data };
}

/** JSON text's value; undefined when it is not JSON. */
function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `host`: the connected host's profile id, when known (see `nextStepFor`). */
export function errorEnvelope(error: BridgeError, host?: string): ErrorEnvelope {
  const details = unstated(error.details, error.message);
  return {
    code: error.code,
    message: error.message,
    retryable: error.retryable,
    nextStep: nextStepFor(error.code, error.details, host),
    ...(Object.keys(details).length > 0 ? { details } : {}),
  };
}

/**
 * The details the message does not already state: one whose every value (a string, or a
 * number of two or more digits) the message holds word for word is said once, there. Details
 * read by name (DETAILS_READ_BY_NAME) stay whatever the message says.
 */
export function unstated(
  details: Record<string, unknown>,
  message: string,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(details).filter(([key, value]) =>
      DETAILS_READ_BY_NAME.has(key) || !statedIn(value, message)
    ),
  );
}

function statedIn(value: unknown, message: string): boolean {
  if (typeof value === "string") return value.length > 2 && holdsWord(message, value);
  if (typeof value === "number") return Math.abs(value) >= 10 && holdsWord(message, String(value));
  if (Array.isArray(value)) return value.length > 0 && value.every((v) => statedIn(v, message));
  if (isObject(value)) {
    const values = Object.values(value);
    return values.length > 0 && values.every((v) => statedIn(v, message));
  }
  return false;
}

/** Whether `text` holds `word` not as part of a longer word or number. */
function holdsWord(text: string, word: string): boolean {
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
    const before = text[at - 1] ?? " ";
    const after = text[at + word.length] ?? " ";
    if (!/[\w-]/.test(before) && !/[\w-]/.test(after)) return true;
  }
  return false;
}

/** A success's structuredContent, as `success` writes it. */
const SUCCESS = z.object({
  ok: z.literal(true),
  data: z.unknown(),
  custodyWarning: custodyWarningSchema.optional(),
});

/**
 * The envelope of a result, for programs (doctor, tests): a success's structuredContent, an
 * error's text read back. Throws when the result has neither shape.
 */
export function envelopeOf(result: object): Envelope {
  const structured = SUCCESS.safeParse(Reflect.get(result, "structuredContent"));
  if (structured.success) {
    const { data, custodyWarning } = structured.data;
    return { ok: true, data, ...(custodyWarning ? { custodyWarning } : {}) };
  }
  const content: unknown = Reflect.get(result, "content");
  const first: unknown = Array.isArray(content) ? content[0] : undefined;
  const text = isObject(first) && typeof first.text === "string" ? first.text : undefined;
  const read = text === undefined ? undefined : parseErrorResult(text);
  if (read) return { ok: false, ...read };
  throw new Error(`not a tool result envelope: ${JSON.stringify(result).slice(0, 300)}`);
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
  return new BridgeError(
    Codes.internal,
    "The bridge hit an unexpected error; its stderr log has the details.",
    false,
  );
}
