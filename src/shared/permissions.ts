/**
 * The one permission set of the bridge. `serve`, `config`, `doctor`, the bundle run, the
 * `compile` task, the host command printed by `config` and the end-to-end tests all build
 * their Deno flags here, so the confinement promise is written exactly once.
 */
import { DAEMON_URL_HOST, grantablePath, SOCKET_ENV_VARS } from "./socket_location.ts";

export { DAEMON_URL_HOST };

/**
 * How the run form is kept from fetching code at run time, by what it runs:
 * - "source" (main.ts from a checkout): npm packages come only from Deno's cache as deno.lock
 *   pins them. `--cached-only` forbids any download; `--frozen` refuses any lock-file change, so
 *   an `import("npm:…")` the lock does not pin fails before anything is written.
 * - "bundle" (the installed copy): every dependency is inside the bundle, so npm is switched
 *   off outright and no configuration or lock file (the host's working directory may hold
 *   one) is even looked at.
 * - "compile" (`deno compile`): the build may download Deno's runtime, but the lock stays
 *   frozen; the binary then holds all its code.
 * All refuse remote modules (`--no-remote`).
 */
export type RunForm = "source" | "bundle" | "compile";

const NO_FETCH: Record<RunForm, readonly string[]> = {
  source: ["--no-remote", "--cached-only", "--frozen"],
  bundle: ["--no-remote", "--no-npm", "--no-config", "--cached-only"],
  compile: ["--no-remote", "--frozen"],
};

/** What every confined run form starts with: no prompt, no code fetched, quiet. */
export function fetchlessFlags(form: RunForm): string[] {
  return ["--no-prompt", ...NO_FETCH[form], "--quiet"];
}

/** Deno `run`/`compile` flags confining the process to one daemon socket (plus one V8 flag). */
export function confinedFlags(socketPath: string, form: RunForm = "source"): string[] {
  grantablePath(socketPath, "The socket path");
  return [
    `--allow-read=${socketPath}`,
    `--allow-write=${socketPath}`,
    `--allow-net=unix:${socketPath},${DAEMON_URL_HOST}`,
    `--allow-env=${SOCKET_ENV_VARS.join(",")}`,
    // Its own user id, and nothing else of the system: a socket (and, for the launcher and the
    // tasks, every folder on the way to it) must be this user's (socket_site.ts), checked
    // again before each request (src/daemon/socket_identity.ts).
    "--allow-sys=uid",
    "--no-prompt",
    ...NO_FETCH[form],
    "--quiet",
    // A long-lived bridge makes many small requests. V8's defaults let the young generation
    // and the old-space growth factor settle at ~130 MiB RSS after a few thousand calls;
    // 1 MiB semi-spaces and --optimize-for-size settle near 93 MiB for ~0.1 ms per call.
    // Garbage left by a burst waits for V8's memory reducer, which by default may not start
    // until 30 s after start-up and then waits 8 s more: RSS stayed up to 40 s above 100 MiB
    // after a flood ended. Starting it after 1 s, and acting after 1 s of quiet, gives the
    // memory back about 2 s after a burst (docs/memory.md).
    "--v8-flags=--max-semi-space-size=1,--optimize-for-size," +
    "--gc-memory-reducer-start-delay-ms=1000,--memory-reducer-delay-ms=1000",
  ];
}

/**
 * Environment every printed host entry and task sets: Deno's update check would otherwise
 * make a DNS query and an HTTPS request at start-up, the only network use left.
 */
export const RUN_ENV: Readonly<Record<string, string>> = { DENO_NO_UPDATE_CHECK: "1" };

/**
 * The environment of every child process this project starts (demo, tests, bench): the
 * caller's own plus what the child needs on top. Deno itself needs variables such as
 * DENO_DIR, DENO_CERT, NODE_EXTRA_CA_CERTS and the proxy settings to find its cache and reach
 * the network; a stripped environment breaks it in ways that look like a server crash. The
 * confined bridge still reads only the variables its permission set allows.
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { ...Deno.env.toObject(), ...RUN_ENV, ...extra };
}
