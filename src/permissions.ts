/**
 * The one permission set of the bridge. `serve`, `config`, `doctor`, the bundle run, the
 * `compile` task, the host command printed by `config` and the end-to-end tests all build
 * their Deno flags here, so the confinement promise is written exactly once.
 */

/** Environment variables that locate the daemon socket; the only ones the bridge may read. */
export const SOCKET_ENV_VARS = ["PORTREEVE_SOCKET", "XDG_STATE_HOME", "HOME"] as const;

/**
 * URL host used for HTTP over the Unix socket. Deno looks the URL host up even when the
 * connection goes to a Unix socket, so a name would cost a DNS query per new connection (and
 * stall where DNS is unreachable). An IP literal from the discard-only prefix (RFC 6666)
 * needs no lookup, and the net grant for it cannot reach any machine.
 */
export const DAEMON_URL_HOST = "[100::]";

/** Deno `run`/`compile` flags confining the process to one daemon socket (plus one V8 flag). */
export function confinedFlags(socketPath: string): string[] {
  // Deno splits permission lists on commas with no escape, so such a path cannot be granted.
  if (socketPath.includes(",")) {
    throw new RangeError(
      `The socket path ${socketPath} contains a comma, which Deno permission flags cannot express; use a path without commas.`,
    );
  }
  return [
    `--allow-read=${socketPath}`,
    `--allow-write=${socketPath}`,
    `--allow-net=unix:${socketPath},${DAEMON_URL_HOST}`,
    `--allow-env=${SOCKET_ENV_VARS.join(",")}`,
    "--no-prompt",
    // No code from the network at run time: a compromised dependency cannot import() a URL.
    "--no-remote",
    "--quiet",
    // A long-lived bridge makes many small requests. V8's defaults let the young generation
    // and the old-space growth factor settle at ~130 MiB RSS after a few thousand calls;
    // 1 MiB semi-spaces and --optimize-for-size settle near 93 MiB for ~0.1 ms per call.
    "--v8-flags=--max-semi-space-size=1,--optimize-for-size",
  ];
}
