/**
 * The bridge's stable error vocabulary, shared by every room. Every failure a tool reports is
 * a `BridgeError` with a code from here: `portreeve_<daemon code>` for errors the daemon sent
 * (mapped in daemon/errors.ts), and a few of our own for what happens before or around it.
 */
export type Details = Record<string, unknown>;

export class BridgeError extends Error {
  override name = "BridgeError";
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
    readonly details: Details = {},
    /** What the caller should do now, when it is more specific than the code's usual step. */
    readonly nextStep?: string,
  ) {
    super(message);
  }

  toJSON(): { code: string; message: string; retryable: boolean; details: Details } {
    return {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      details: this.details,
    };
  }
}

/** Codes the bridge itself produces (the daemon's own codes are prefixed on the fly). */
export const Codes = {
  unavailable: "portreeve_unavailable",
  incompatible: "portreeve_incompatible",
  invalidResponse: "portreeve_invalid_response",
  invalidInput: "portreeve_invalid_input",
  misconfigured: "portreeve_misconfigured",
  cancelled: "portreeve_cancelled",
  conflict: "portreeve_conflict",
  internal: "portreeve_internal",
  /** The person said no (or dismissed the question); nothing was sent to the daemon. */
  approvalDeclined: "portreeve_approval_declined",
  /** No person's answer could be had (no answer in time, or the host cannot ask). */
  approvalUnavailable: "portreeve_approval_unavailable",
  /**
   * An input value that would signal processes or delete data (e.g. an acquire that
   * reclaims), on a host that cannot ask; nothing was sent. The receipt pair does it instead.
   */
  approvalNeedsReceipt: "portreeve_approval_needs_receipt",
  /** The bridge's own bounds (calls in flight, file descriptors), never the daemon's fault. */
  bridgeBusy: "portreeve_bridge_busy",
  bridgeResourceLimit: "portreeve_bridge_resource_limit",
} as const;

export function invalidInput(message: string, details: Details = {}): BridgeError {
  return new BridgeError(Codes.invalidInput, message, false, details);
}

export function resourceLimit(cause: string): BridgeError {
  return new BridgeError(
    Codes.bridgeResourceLimit,
    `This bridge process ran out of file descriptors (${cause}); the daemon was not reached, ` +
      "so nothing was sent. Retry in a moment; if it persists, raise the open-file limit " +
      "(ulimit -n) of the host that starts the bridge.",
    true,
    { cause, limit: "file-descriptors" },
  );
}

export function invalidResponse(reason: string, details: Details = {}): BridgeError {
  return new BridgeError(
    Codes.invalidResponse,
    `The PortReeve daemon sent a response this bridge cannot read (${reason}). ` +
      "Check that the socket belongs to a PortReeve daemon; `portreeve-mcp doctor` shows what answers there.",
    false,
    details,
  );
}
