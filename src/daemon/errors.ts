/** Daemon error codes and the daemon-specific failures built from them. */
import { startDaemonHint } from "../hints.ts";
import { BridgeError, Codes } from "../errors.ts";

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

/** The process hit its open-file limit (EMFILE/ENFILE): the daemon may be perfectly fine. */
