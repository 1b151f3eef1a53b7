/**
 * The bridge's stable error vocabulary, shared by every room. Every failure a tool reports is
 * a `BridgeError` with a code from here. What each code means, whose doing it is and what to
 * do next is written once, in error_codes.ts.
 */
export type Details = Record<string, unknown>;

export class BridgeError extends Error {
  override name = "BridgeError";
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
    readonly details: Details = {},
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

/** Every code a result can carry; daemon codes are mapped onto these (error_codes.ts). */
export const Codes = {
  unavailable: "portreeve_unavailable",
  incompatible: "portreeve_incompatible",
  invalidResponse: "portreeve_invalid_response",
  invalidInput: "portreeve_invalid_input",
  misconfigured: "portreeve_misconfigured",
  cancelled: "portreeve_cancelled",
  conflict: "portreeve_conflict",
  notFound: "portreeve_not_found",
  leaseExpired: "portreeve_lease_expired",
  /**
   * A lease (or an activation's leases) the daemon granted that was dead when its answer
   * arrived, or about to be and could not be renewed at once: nothing is held; acquire again.
   */
  leaseLapsed: "portreeve_lease_lapsed",
  leaseNotPending: "portreeve_lease_not_pending",
  invalidLeaseToken: "portreeve_invalid_lease_token",
  invalidOperationCredential: "portreeve_invalid_operation_credential",
  /** The daemon's own `unavailable`: evidence it cannot observe (Docker, a provider). */
  evidenceUnavailable: "portreeve_evidence_unavailable",
  /** The daemon failed on its side (`internal`, HTTP 5xx): its fault, not the bridge's. */
  daemonError: "portreeve_daemon_error",
  /** Only ever this bridge's own bug. */
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
  credentialUnavailable: "portreeve_credential_unavailable",
  credentialCustodyClosed: "portreeve_credential_custody_closed",
  credentialHandleCollision: "portreeve_credential_handle_collision",
  /**
   * Why a held launcher operation lapsed (the code of its `renewalFailure`): its deadline
   * passed before custody could renew it.
   */
  operationDeadlinePassed: "portreeve_operation_deadline_passed",
} as const;

export function invalidInput(message: string, details: Details = {}): BridgeError {
  return new BridgeError(Codes.invalidInput, message, false, details);
}

export function resourceLimit(cause: string): BridgeError {
  return new BridgeError(
    Codes.bridgeResourceLimit,
    `This bridge process ran out of file descriptors (${cause}); nothing was sent to the daemon.`,
    true,
    { cause, limit: "file-descriptors" },
  );
}

export function invalidResponse(reason: string, details: Details = {}): BridgeError {
  return new BridgeError(
    Codes.invalidResponse,
    `The PortReeve daemon sent a response this bridge cannot read (${reason}).`,
    false,
    details,
  );
}
