/**
 * Whether this process may use its socket. The confined bridge is granted exactly one socket
 * path; `--socket` pointing anywhere else would only fail later with a raw permission error,
 * so we detect it up front and say which path the grant names.
 */
import { denoEnv, discoverSocket } from "../daemon/discovery.ts";

function granted(path: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "read", path }).state === "granted";
  } catch {
    return false;
  }
}

export function grantProblem(socketPath: string): string | undefined {
  if (granted(socketPath)) return undefined;
  let grantedPath: string | undefined;
  try {
    const usual = discoverSocket(undefined, denoEnv).path;
    if (granted(usual)) grantedPath = usual;
  } catch { /* no usual socket to name */ }
  const grant = grantedPath
    ? `its permission grant names ${grantedPath}`
    : "it was built for another socket";
  return `This bridge may not use ${socketPath}: ${grant}. Run \`portreeve-mcp config --socket ${socketPath}\` ` +
    "and relaunch the bridge with the command it prints (or drop --socket to use the granted socket).";
}
