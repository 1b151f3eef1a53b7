/**
 * Daemon error codes and the agent-facing failures about reaching the daemon (what a failed
 * request becomes: `failureError`). These messages
 * state what happened; what to do is the code's next step (error_codes.ts). None of them
 * tells an agent to start anything: that is a person's job.
 */
import { grantDescription, grantedSocket } from "../shared/hints.ts";
import {
  BridgeError,
  Codes,
  invalidInput,
  invalidResponse,
  resourceLimit,
} from "../shared/errors.ts";
import { DAEMON_CODES, type DaemonCode } from "../shared/error_codes.ts";
import type { HttpFailure } from "./http.ts";

export function isDaemonCode(code: unknown): code is DaemonCode {
  return typeof code === "string" && Object.hasOwn(DAEMON_CODES, code);
}

/** The bridge's code for a daemon code (`details.daemonCode` keeps the daemon's own). */
export function bridgeCodeFor(daemonCode: DaemonCode): string {
  return DAEMON_CODES[daemonCode];
}

/**
 * Nothing answers on the socket this bridge was given. That is all the bridge knows: PortReeve
 * may be stopped, or running on another socket (a moved socket, an old host entry), so the
 * message names the socket and claims nothing about the daemon.
 */
export function unavailable(socketPath: string, cause: string): BridgeError {
  const why = plainCause(cause);
  return new BridgeError(
    Codes.unavailable,
    `Nothing answers at ${socketPath}, the PortReeve socket this bridge uses (${why}).`,
    true,
    { socketPath, cause: why },
  );
}

/**
 * HTTP statuses with which a server refuses a request for its size before handling it: the
 * body (413), the URL (414), or the header block, which holds the URL (431).
 */
export const TOO_LONG_STATUSES: ReadonlySet<number> = new Set([413, 414, 431]);

/**
 * A request too long to send (`refusal` says who refused it: the daemon's HTTP status, or this
 * client), as the caller's input error, naming the longest query field (or the body).
 * Nothing was done: the request never reached a route.
 */
export function requestTooLong(refusal: string, target: string, body?: string): BridgeError {
  let field: string | undefined;
  let length = 0;
  for (const [name, value] of new URLSearchParams(target.split("?")[1] ?? "")) {
    if (value.length > length) [field, length] = [name, value.length];
  }
  const inBody = body !== undefined && body.length > target.length;
  const what = inBody
    ? `the request body (${body.length} characters)`
    : field !== undefined
    ? `${field} (${length} characters)`
    : `the URL (${target.length} characters)`;
  return invalidInput(
    `${refusal}: ${what} is too long.`,
    inBody || field === undefined ? { length: inBody ? body.length : target.length } : {
      field,
      length,
    },
  );
}

/** How a call stopped waiting for the daemon: its bound ran out, or the host cancelled it. */
export type WaitEnd = { kind: "timeout"; afterMs: number } | { kind: "aborted" };

/**
 * The call stopped waiting before the daemon answered: its bound (`serve --daemon-wait-ms`) ran
 * out, or the host cancelled it. For a read there is nothing more to know. A change the daemon
 * already has is acted on all the same, so the bridge waits on for its answer, and the error says
 * what becomes of it: `givesBack` (the route's give-back, routes.ts) when the answer hands over
 * something held, else it may be applied and is logged (`details.outcome: "unknown"`).
 */
export function waitEnded(
  socketPath: string,
  end: WaitEnd,
  change?: { givesBack?: string },
): BridgeError {
  const timeout = end.kind === "timeout";
  const waited = timeout
    ? `The PortReeve daemon at ${socketPath} did not answer within ${
      seconds(end.afterMs)
    } (this bridge's bound, serve --daemon-wait-ms): it is stuck, or far behind other agents' requests.`
    : "The call was cancelled before the daemon answered.";
  const code = timeout ? Codes.unavailable : Codes.cancelled;
  const details: Record<string, unknown> = timeout
    ? { socketPath, reason: "timeout", waitedMs: end.afterMs }
    : {};
  if (!change) return new BridgeError(code, waited, timeout, details);
  const repeat =
    " Repeating the call with the same arguments waits for that answer instead of sending the change again.";
  if (change.givesBack !== undefined) {
    return new BridgeError(
      code,
      `${waited} The daemon has this change and may still grant it: when it answers, the bridge gives back what it granted (${change.givesBack}), so nothing is held.${repeat}`,
      timeout,
      { ...details, lateAnswer: "given back" },
    );
  }
  return new BridgeError(
    code,
    `${waited} The daemon has this change and may still apply it; the bridge logs its answer.${repeat}`,
    timeout,
    { ...details, outcome: "unknown", lateAnswer: "logged" },
  );
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The socket lies outside this process's permission grant: a setting, not a daemon fault. */
export function notGranted(socketPath: string): BridgeError {
  const usual = grantedSocket();
  return new BridgeError(
    Codes.misconfigured,
    `This bridge may not use ${socketPath}: ${
      grantDescription().replace("its Deno permission", "its permission")
    }. This is a permission setting, not an unreachable daemon.`,
    false,
    { socketPath, ...(usual ? { grantedSocket: usual } : {}) },
  );
}

/**
 * What the caller reads of a request's `failure` on the socket at `socketPath`; `change` when
 * the request was a change (one the daemon may have received says its outcome is unknown).
 */
export function failureError(
  socketPath: string,
  failure: HttpFailure,
  change?: { givesBack?: string },
): BridgeError {
  if (failure.kind === "timeout" || failure.kind === "aborted") {
    // Kept: the daemon has the change, and its answer is still awaited (late.ts).
    return waitEnded(socketPath, failure, failure.kept ? change : undefined);
  }
  const error = describedFailure(socketPath, failure);
  // Without an answer, a change the daemon received may have been applied.
  const received = failure.kind === "broken" || failure.kind === "oversize";
  return change && received ? outcomeUnknown(error) : error;
}

function describedFailure(
  socketPath: string,
  failure: Exclude<HttpFailure, { kind: "timeout" } | { kind: "aborted" }>,
): BridgeError {
  switch (failure.kind) {
    case "connect":
    case "unsent": // the daemon never had the request: nothing to be unsure about
    case "broken":
      return unavailable(socketPath, failure.cause);
    case "resources":
      return resourceLimit(failure.cause);
    case "permission":
      return notGranted(socketPath);
    case "oversize":
      return invalidResponse(`a body over ${failure.limit} bytes`, { limit: failure.limit });
  }
}

/**
 * The same error, marked `details.outcome: "unknown"`: the mutation may have reached the
 * daemon, but no readable answer came back. Callers add which read shows the actual state.
 */
export function outcomeUnknown(error: BridgeError): BridgeError {
  return new BridgeError(
    error.code,
    `${error.message} No readable answer came back, so this change may or may not have been applied.`,
    error.retryable,
    { ...error.details, outcome: "unknown" },
  );
}

/** An answer the daemon sent that says nothing about whether the change was applied. */
export function unreadableAnswer(error: BridgeError): boolean {
  if (error.code === Codes.invalidResponse || error.code === Codes.incompatible) return true;
  // An HTTP 5xx without an envelope; the daemon's own `internal` error (daemonCode) is an answer.
  return error.code === Codes.daemonError && !("daemonCode" in error.details);
}

/** A connect failure in a few plain words (the runtime's text names an internal URL). */
function plainCause(cause: string): string {
  if (/No such file|os error 2\b|ENOENT/i.test(cause)) return "no socket there";
  if (/Connection refused|os error 111\b|ECONNREFUSED/i.test(cause)) return "connection refused";
  if (/Connection reset|os error 104\b|ECONNRESET/i.test(cause)) return "connection reset";
  if (/Permission denied|os error 13\b|EACCES/i.test(cause)) return "permission denied";
  return cause;
}
