/**
 * Next steps for a person (doctor, a terminal, the log), spelled so they can be pasted as
 * printed for the way this bridge was started: the installed launcher, a compiled binary, or
 * `deno task` in the checkout (with the absolute Deno, which may not be on PATH).
 * Needs no permission: it looks only at the running executable and entry module.
 */
import { denoEnv, discoverSocket } from "./socket_location.ts";
import { detectInstallation } from "./installation.ts";
import { shellJoin, shellQuote } from "./shell.ts";

export const PORTREEVE_PROJECT = "https://github.com/TrentBrown/portreeve";

/** The checkout a source or dist/ bundle run comes from, or null. */
export function checkoutOf(entryPath: string | null): string | null {
  if (entryPath === null) return null;
  if (entryPath.endsWith("/dist/main.js")) return entryPath.slice(0, -"/dist/main.js".length);
  if (entryPath.endsWith("/main.ts")) return entryPath.slice(0, -"/main.ts".length);
  return null;
}

/** A pasteable `portreeve-mcp <words…>` for this installation. */
export function commandLine(words: string[]): string {
  const installation = detectInstallation();
  if (installation.kind === "installed" && installation.launcher) {
    return shellJoin([installation.launcher, ...words]);
  }
  if (installation.kind === "compiled") return shellJoin([installation.execPath, ...words]);
  const checkout = checkoutOf(installation.entryPath);
  if (checkout === null) return shellJoin(["portreeve-mcp", ...words]);
  return `cd ${shellQuote(checkout)} && ${shellJoin([installation.execPath, "task", ...words])}`;
}

function granted(path: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "read", path }).state === "granted";
  } catch {
    return false;
  }
}

/** The socket this process's permission grant covers, when it is the usual one. */
export function grantedSocket(): string | undefined {
  try {
    const usual = discoverSocket(undefined, denoEnv).path;
    return granted(usual) ? usual : undefined;
  } catch {
    return undefined;
  }
}

/** Whether this process may use `socketPath`; a message saying what to do when it may not. */
export function grantProblem(socketPath: string): string | undefined {
  if (granted(socketPath)) return undefined;
  return notGrantedMessage(socketPath);
}

/** The socket is outside this process's Deno permission grant (not a daemon problem). */
export function notGrantedMessage(socketPath: string): string {
  const usual = grantedSocket();
  const grant = usual
    ? `its Deno permission grant names ${usual}`
    : "its Deno permission grant names another socket";
  const config = commandLine(["config", "--socket", socketPath, "--host", "claude"]);
  return `This bridge may not use ${socketPath}: ${grant}. This is a permission grant, not an ` +
    `unreachable daemon. Print a command granted for that socket with \`${config}\` (or ` +
    `--host codex / generic) and relaunch the bridge with it${
      usual ? `, or drop --socket to use ${usual}` : ""
    }.`;
}
