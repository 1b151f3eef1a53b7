/**
 * The one response builder. Success: `structuredContent = {ok:true, data}` and a one-line
 * summary as text. Failure: `{ok:false, error}`, the code and message as text, and
 * `isError: true` — always, so hosts and models that key off `isError` see the failure.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { BridgeError, Codes } from "../daemon/errors.ts";
import { CustodyError } from "../custody/mod.ts";

export function success(data: unknown, summary: string): CallToolResult {
  return {
    content: [{ type: "text", text: summary }],
    structuredContent: { ok: true, data } as Record<string, unknown>,
  };
}

export function failure(error: BridgeError): CallToolResult {
  return {
    content: [{ type: "text", text: `${error.code}: ${error.message}` }],
    structuredContent: { ok: false, error: error.toJSON() },
    isError: true,
  };
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
