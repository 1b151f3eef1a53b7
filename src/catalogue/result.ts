/**
 * The one response builder. Hosts disagree about which half of a result reaches the model
 * (Claude Code and Codex read structuredContent on success, Gemini CLI only the text; Claude
 * Code reads only the text of an error), so both halves carry everything:
 *
 * - `structuredContent` is `{ok:true, data}` or
 *   `{ok:false, error:{code, message, retryable, nextStep, details}}`;
 * - the one text block is a one-line summary, `\n`, then that same envelope as compact JSON;
 * - every failure sets `isError: true`;
 * - while a credential this bridge holds is at risk (its renewal is late or failed) or has just
 *   lapsed, the envelope also carries `custodyWarning` (custody_views.ts) and the summary says
 *   so, whatever the call was: the holder learns it before the lease can expire.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { BridgeError, Codes } from "../errors.ts";
import { CustodyError } from "../custody/mod.ts";
import { type CustodyWarningView, warningSummary } from "./custody_views.ts";

export interface ErrorEnvelope {
  code: string;
  message: string;
  retryable: boolean;
  /** The one thing to do now; always present, so a model never has to guess. */
  nextStep: string;
  details: Record<string, unknown>;
}

export function success(
  data: unknown,
  summary: string,
  warning?: CustodyWarningView,
): CallToolResult {
  const envelope = { ok: true, data, ...(warning ? { custodyWarning: warning } : {}) };
  const head = warning ? `${summary} ${warningSummary(warning)}` : summary;
  return {
    content: [{ type: "text", text: `${oneLine(head)}\n${JSON.stringify(envelope)}` }],
    structuredContent: envelope as Record<string, unknown>,
  };
}

export function failure(error: BridgeError, warning?: CustodyWarningView): CallToolResult {
  const body = errorEnvelope(error);
  const envelope = { ok: false, error: body, ...(warning ? { custodyWarning: warning } : {}) };
  let head = `${body.code} (${body.retryable ? "retryable" : "not retryable"}): ${body.message}`;
  if (warning) head = `${head} ${warningSummary(warning)}`;
  return {
    content: [{ type: "text", text: `${oneLine(head)}\n${JSON.stringify(envelope)}` }],
    structuredContent: envelope,
    isError: true,
  };
}

export function errorEnvelope(error: BridgeError): ErrorEnvelope {
  return {
    code: error.code,
    message: error.message,
    retryable: error.retryable,
    nextStep: error.nextStep ?? nextStepFor(error),
    details: error.details,
  };
}

/** The usual next step for each code; the daemon's `details.reason` is named when it helps. */
const NEXT_STEPS: Record<string, string> = {
  [Codes.unavailable]:
    "Start the daemon (`portreeve start`) or fix the bridge's --socket, then retry; portreeve_diagnostics shows the socket in use.",
  [Codes.incompatible]:
    "Do not retry: upgrade PortReeve or this bridge so they match; portreeve_compatibility lists what is missing.",
  [Codes.invalidResponse]:
    "Do not retry: run portreeve_diagnostics and check that the socket belongs to a PortReeve daemon.",
  [Codes.misconfigured]:
    "Ask the user to relaunch the bridge as the message says (`portreeve-mcp config` prints the exact command).",
  [Codes.cancelled]: "Call again if the result is still needed.",
  [Codes.invalidInput]:
    "Correct the arguments named in details (issues, field, reason or documentCode) and call again.",
  [Codes.internal]:
    "Do not retry the same call; tell the user, whose bridge stderr log has the cause.",
  portreeve_not_found:
    "Check the id: the list tools (claims, stacks, activations, generations, history) show valid ones.",
  portreeve_conflict:
    "Read the current state (details.reason says what blocks it) and retry only after it changes.",
  portreeve_lease_expired: "The lease lapsed: acquire or begin again for a new one.",
  portreeve_lease_not_pending:
    "The lease is already settled (an earlier call may have applied): read its state before acting again.",
  portreeve_invalid_lease_token:
    "Do not retry with this handle: acquire or begin again for a new credential.",
  portreeve_invalid_operation_credential:
    "Do not retry with this handle: read the operation with portreeve_launcher_operation_get.",
  portreeve_credential_unavailable:
    "This handle can no longer be used: read the current state, then acquire, begin or start the operation again if still needed.",
};

function nextStepFor(error: BridgeError): string {
  // The daemon's own `unavailable` (not retryable) means evidence it could not observe.
  if (error.code === Codes.unavailable && !error.retryable) {
    return "The daemon could not observe what it needs (e.g. Docker); details say which. Try again once it is observable.";
  }
  return NEXT_STEPS[error.code] ??
    (error.retryable
      ? "Retry the same call shortly."
      : "Do not retry unchanged: read details, and run portreeve_diagnostics if the cause is unclear.");
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
    "The bridge hit an unexpected error; the details are in its stderr log. Retrying will not help until it is fixed.",
    false,
  );
}
