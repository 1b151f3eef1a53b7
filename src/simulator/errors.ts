// Protocol error type and the HTTP status mapping of the PortReeve v1 envelope.
import type { z } from "zod";

type ErrorCode =
  | "conflict"
  | "incompatible_protocol"
  | "invalid_input"
  | "invalid_lease_token"
  | "invalid_operation_credential"
  | "lease_expired"
  | "lease_not_pending"
  | "not_found"
  | "unavailable"
  | "internal";

type Details = Record<string, unknown>;

/**
 * Every `details.reason` the simulator's errors carry, by the code they come with (the
 * daemon's own reasons; its documents' `documentCode`s are below). Typed into `fail`, so an
 * error cannot carry a reason missing here — the bridge's tests walk this list.
 */
export const ERROR_REASONS = {
  conflict: [
    "active_run",
    "pending_lease",
    "live_listener",
    "unchanged",
    "reserved",
    "port_assigned",
    "port_pending",
    "claim_pending",
    "stack_root_overlap",
    "launcher_operation_active",
    "activation_live",
    "claim_mode",
    "exact_port_mismatch",
    "listener_present",
    "provider_present",
    "leases_pending",
    "stale_generation",
    "binding_kind_mismatch",
    "activation_inactive",
    "required_dependency_unavailable",
    "generation_endpoint_missing",
    "caller_operation_exists",
    "launcher_operation_terminal",
    "launcher_completion_mismatch",
  ],
  invalid_input: [
    "invalid_stack_root",
    "unsupported_stack_filter",
    "generation_stack_mismatch",
    "binding_component_unknown",
    "docker_definition_missing",
    "docker_endpoint_definition_missing",
    "optional_required_dependency",
  ],
  unavailable: ["provider_unobservable"],
} as const;

export const DOCUMENT_CODES = [
  "invalid_stack_root",
  "invalid_stack_definition",
  "stack_definition_changed",
  "stack_definition_read_failed",
  "stack_definition_verification_failed",
  "stack_definition_too_large",
  "stack_definition_not_regular",
] as const;

type ReasonOf<C extends keyof typeof ERROR_REASONS> = (typeof ERROR_REASONS)[C][number];
type ErrorReason = ReasonOf<keyof typeof ERROR_REASONS>;
type DocumentCode = (typeof DOCUMENT_CODES)[number];

/** Details whose `reason`, if any, is one of the code's declared reasons. */
type DetailsWith<R extends string> = Details & { reason?: R };

/** A domain failure that the server turns into an error envelope. */
export class ProtocolError extends Error {
  readonly code: ErrorCode;
  readonly details: Details;
  readonly status: number;
  readonly retryable: boolean;

  constructor(
    code: ErrorCode,
    message: string,
    details: DetailsWith<ErrorReason> = {},
    override: { status?: number; retryable?: boolean } = {},
  ) {
    super(message);
    this.code = code;
    this.details = details;
    this.status = override.status ?? statusFor(code);
    // Domain conflicts are retryable; receipt and document conflicts override this.
    this.retryable = override.retryable ?? code === "conflict";
  }
}

function statusFor(code: ErrorCode): number {
  switch (code) {
    case "not_found":
      return 404;
    case "conflict":
    case "lease_expired":
    case "lease_not_pending":
      return 409;
    case "incompatible_protocol":
      return 426;
    default:
      // The daemon sends every other domain code (even unavailable/internal) with 400.
      return 400;
  }
}

export const fail = {
  notFound: (message: string, details: Details = {}): ProtocolError =>
    new ProtocolError("not_found", message, details),
  conflict: (message: string, details: DetailsWith<ReasonOf<"conflict">> = {}): ProtocolError =>
    new ProtocolError("conflict", message, details),
  invalid: (message: string, details: DetailsWith<ReasonOf<"invalid_input">> = {}): ProtocolError =>
    new ProtocolError("invalid_input", message, details),
  unavailable: (
    message: string,
    details: DetailsWith<ReasonOf<"unavailable">> = {},
  ): ProtocolError => new ProtocolError("unavailable", message, details),
  internal: (message: string, details: Details = {}): ProtocolError =>
    new ProtocolError("internal", message, details),
  leaseNotPending: (message: string, details: Details = {}): ProtocolError =>
    new ProtocolError("lease_not_pending", message, details),
  leaseExpired: (message: string, details: Details = {}): ProtocolError =>
    new ProtocolError("lease_expired", message, details),
  badToken: (message: string): ProtocolError => new ProtocolError("invalid_lease_token", message),
  badCredential: (message: string, details: Details = {}): ProtocolError =>
    new ProtocolError("invalid_operation_credential", message, details),
  /** not_found and receipt_mismatch name the receipt too (`receiptId`), like the daemon. */
  receipt: (
    receiptCode: "not_found" | "receipt_mismatch" | "receipt_expired",
    message: string,
    receiptId?: string,
  ) => {
    const details = receiptId === undefined ? { receiptCode } : { receiptCode, receiptId };
    return receiptCode === "not_found"
      ? new ProtocolError("not_found", message, details)
      : new ProtocolError("conflict", message, details, { retryable: false });
  },
  document: (documentCode: DocumentCode, message: string, details: Details = {}): ProtocolError =>
    documentCode === "invalid_stack_root" || documentCode === "invalid_stack_definition"
      ? new ProtocolError("invalid_input", message, { ...details, documentCode })
      : new ProtocolError("conflict", message, { ...details, documentCode }, { retryable: false }),
};

/** The daemon's one message for every schema failure; `details.issues` carries specifics. */
export const SCHEMA_MESSAGE = "The PortReeve request is invalid.";

/** Turns Zod issues into the daemon's schema-validation error. */
export function schemaError(issues: z.ZodError["issues"] | z.ZodError): ProtocolError {
  const list = Array.isArray(issues) ? issues : issues.issues;
  return new ProtocolError("invalid_input", SCHEMA_MESSAGE, {
    issues: JSON.parse(JSON.stringify(list)),
  });
}

/** Parses with a Zod schema, throwing the protocol's invalid_input error on failure. */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw schemaError(result.error);
  return result.data;
}
