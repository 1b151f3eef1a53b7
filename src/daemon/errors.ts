/** Daemon error codes and the daemon-specific failures built from them. */
import { startDaemonHint } from "../hints.ts";
import { BridgeError, Codes, invalidInput } from "../errors.ts";

/** The daemon's closed set of error codes; anything else in an error envelope is not its. */
const DAEMON_CODES = new Set([
  "conflict",
  "incompatible_protocol",
  "invalid_input",
  "invalid_lease_token",
  "invalid_operation_credential",
  "lease_expired",
  "lease_not_pending",
  "not_found",
  "unavailable",
  "internal",
]);

export function isDaemonCode(code: unknown): code is string {
  return typeof code === "string" && DAEMON_CODES.has(code);
}

/** Maps a daemon error code to ours; `incompatible_protocol` joins our incompatible code. */
export function bridgeCodeFor(daemonCode: string): string {
  return daemonCode === "incompatible_protocol" ? Codes.incompatible : `portreeve_${daemonCode}`;
}

export function unavailable(socketPath: string, cause: string): BridgeError {
  return new BridgeError(
    Codes.unavailable,
    `The PortReeve daemon is not reachable at ${socketPath} (${cause}). ` +
      `${startDaemonHint(socketPath)} Then retry.`,
    true,
    { socketPath, cause },
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
    `${refusal}: ${what} is too long. Shorten it, or leave that filter out, and call again.`,
    inBody || field === undefined ? { length: inBody ? body.length : target.length } : {
      field,
      length,
    },
  );
}
