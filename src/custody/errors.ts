import type { CredentialKind, RenewalFailure } from "./group.ts";
import { BridgeError, Codes, type Details } from "../shared/errors.ts";
import { isObject } from "../shared/json.ts";

/**
 * Base of custody errors: a `BridgeError` like every failure a tool reports (its code one of
 * `Codes`, its details never secrets), so a result shows it as it shows any other.
 */
export class CustodyError extends BridgeError {
  constructor(code: string, message: string, retryable = false, details: Details = {}) {
    super(code, message, retryable, details);
    this.name = new.target.name;
  }
}

// The code says "credential unavailable"; the message says only why it can be.
const UNAVAILABLE =
  "The handle is unknown, expired or settled, or another activation's, operation's or bridge's.";

/**
 * One error for every handle that cannot be used, so handles cannot be probed. The only
 * distinction: a handle whose renewal failed terminally says so (with code and time).
 */
export class CredentialUnavailableError extends CustodyError {
  readonly renewalFailure?: RenewalFailure;

  constructor(failure?: { kind: CredentialKind; failure: RenewalFailure }) {
    super(
      Codes.credentialUnavailable,
      failure ? lapsedMessage(failure) : UNAVAILABLE,
      false,
      // ISO 8601 like every other time a tool reports; `at` is kept as epoch ms internally.
      failure ? { renewalFailure: failureView(failure.failure) } : {},
    );
    if (failure) this.renewalFailure = failure.failure;
  }
}

/** A renewal failure as details show it: its time in ISO 8601. */
function failureView({ code, message, at }: RenewalFailure): Details {
  return { code, message, at: new Date(at).toISOString() };
}

function lapsedMessage({ kind, failure }: { kind: CredentialKind; failure: RenewalFailure }) {
  const what = kind === "launcher" ? "launcher operation" : "lease";
  return `The ${what} could no longer be renewed ` +
    `(${failure.code} at ${new Date(failure.at).toISOString()}: ${failure.message}); ` +
    `its credential was erased`;
}

/**
 * A credential the daemon granted that was dead on arrival, or about to be and could not be
 * renewed at once: nothing is held, and the agent is told to acquire again (retryable).
 */
export class LeaseLapsedError extends CustodyError {
  readonly expiresAt: number;
  readonly renewalFailure?: RenewalFailure;

  constructor(
    readonly kind: CredentialKind,
    readonly id: string,
    at: { expiresAt: number; now: number; failure?: RenewalFailure },
  ) {
    super(Codes.leaseLapsed, lapsedOnArrival(kind, id, at), true, {
      [kind === "activation" ? "activationId" : "leaseId"]: id,
      expiresAt: new Date(at.expiresAt).toISOString(),
      ...(at.failure ? { renewalFailure: failureView(at.failure) } : {}),
    });
    this.expiresAt = at.expiresAt;
    if (at.failure) this.renewalFailure = at.failure;
  }
}

function lapsedOnArrival(
  kind: CredentialKind,
  id: string,
  { expiresAt, now, failure }: { expiresAt: number; now: number; failure?: RenewalFailure },
): string {
  const what = kind === "activation" ? `activation ${id}'s leases` : `lease ${id}`;
  const expiry = new Date(expiresAt).toISOString();
  const head = `The daemon granted ${what}, but it lapsed before this bridge could keep it: `;
  if (failure) {
    return `${head}it expired at ${expiry}, too soon for a renewal to land, and the renewal ` +
      `sent at once failed (${failure.code}: ${failure.message}). It is not held.`;
  }
  if (expiresAt > now) {
    return `${head}it expired at ${expiry}, too soon to renew. It is not held.`;
  }
  return `${head}the daemon's answer came ${seconds(now - expiresAt)} s after its expiry at ` +
    `${expiry} (a busy daemon sets the expiry from the start of its work). It is not held.`;
}

/** Extension outside the allowed window (default 10–60 minutes from acquisition). */
export class CustodyLimitError extends CustodyError {
  constructor(
    readonly requestedMinutes: number,
    readonly minimumMinutes: number,
    readonly maximumMinutes: number,
  ) {
    super(
      Codes.invalidInput,
      `custody can only be set to between ${minimumMinutes} and ${maximumMinutes} minutes ` +
        `from acquisition (asked for ${requestedMinutes})`,
      false,
      { requestedMinutes, minimumMinutes, maximumMinutes },
    );
  }
}

/** The vault was closed (shutdown); nothing can be held or used any more. */
export class CustodyClosedError extends CustodyError {
  constructor() {
    super(Codes.credentialCustodyClosed, "credential custody is closed (shutting down)");
  }
}

/** Random handles kept colliding: the random source is broken. Nothing was held. */
export class HandleCollisionError extends CustodyError {
  constructor() {
    super(
      Codes.credentialHandleCollision,
      "could not mint a unique credential handle; nothing was held",
    );
  }
}

/**
 * A renewal still unanswered once the credential it renews had expired; aborted and treated
 * as transient (the daemon is slow or gone, not refusing).
 */
export class RenewalTimeoutError extends CustodyError {
  constructor(timeoutMs: number) {
    super(
      Codes.unavailable,
      `renewal got no answer within ${seconds(timeoutMs)} s, by when the credential had expired`,
      true,
    );
  }
}

/** The failure recorded when a renewal is still unanswered halfway to the expiry. */
export function lateRenewal(
  kind: CredentialKind,
  sentAt: number,
  expiresAt: number,
  now: number,
): RenewalFailure {
  const what = kind === "launcher" ? "operation deadline" : "lease expiry";
  return {
    code: Codes.unavailable,
    message: `renewal sent ${seconds(now - sentAt)} s ago is still unanswered (the daemon is ` +
      `slow or busy); the ${what} is ${new Date(expiresAt).toISOString()}`,
    at: now,
  };
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

/**
 * An explicit renewal (`renewLauncherNow`) failed. Carries the renewer's code and retryable
 * flag with a scrubbed message, so even a careless renewer cannot leak a secret through it.
 */
export class RenewalFailedError extends CustodyError {
  readonly renewalFailure: RenewalFailure;

  constructor(failure: RenewalFailure, retryable: boolean, details: Record<string, unknown>) {
    super(failure.code, failure.message, retryable, details);
    this.renewalFailure = failure;
  }
}

/** The renewer's `details`, kept only if they are plain data free of the given secrets. */
export function safeDetails(error: unknown, secrets: readonly string[]): Record<string, unknown> {
  const details = isObject(error) ? error.details : undefined;
  if (!isObject(details)) return {};
  try {
    const json = JSON.stringify(details);
    if (secrets.some((s) => s !== "" && json.includes(s)) || TOKEN_LIKE_ONE.test(json)) return {};
    return JSON.parse(json);
  } catch {
    return {};
  }
}

/** The renewer answered with something custody cannot use. */
export class InvalidRenewalError extends CustodyError {
  constructor(what: string) {
    super(Codes.invalidResponse, `renewal answer is malformed: ${what}`);
  }
}

const MAX_MESSAGE = 240;
const TOKEN_LIKE = /[A-Za-z0-9_-]{43,}/g;
const TOKEN_LIKE_ONE = /[A-Za-z0-9_-]{43,}/;
const CODE = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Turns any thrown value into a RenewalFailure. The message is scrubbed of the secrets that
 * were sent and of anything token-shaped, then truncated: renewers are not trusted to redact.
 */
export function describeFailure(
  error: unknown,
  at: number,
  secrets: readonly string[],
): { failure: RenewalFailure; retryable: boolean } {
  const fields = isObject(error) ? error : {};
  const code = typeof fields.code === "string" && CODE.test(fields.code) &&
      !secrets.some((s) => s !== "" && fields.code === s)
    ? fields.code
    : Codes.internal;
  const retryable = fields.retryable === true;
  let message = error instanceof Error ? error.message : "renewal failed";
  for (const secret of secrets) {
    if (secret !== "") message = message.replaceAll(secret, "[redacted]");
  }
  message = message.replace(TOKEN_LIKE, "[redacted]");
  if (message.length > MAX_MESSAGE) message = `${message.slice(0, MAX_MESSAGE - 1)}…`;
  return { failure: { code, message, at }, retryable };
}
