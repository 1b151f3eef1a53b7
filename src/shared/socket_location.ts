/**
 * Where the daemon socket is, and how we know: flag, environment or platform default. Also
 * the URL host spoken over it, which the permission set grants alongside the socket.
 */
import { type Disk, REAL_DISK, socketSiteProblem } from "./socket_site.ts";

/**
 * URL host used for HTTP over the Unix socket. Deno looks the URL host up even when the
 * connection goes to a Unix socket, so a name would cost a DNS query per new connection (and
 * stall where DNS is unreachable). An IP literal from the discard-only prefix (RFC 6666)
 * needs no lookup, and the net grant for it cannot reach any machine.
 */
export const DAEMON_URL_HOST = "[100::]";

export type SocketSource =
  | "flag"
  | "PORTREEVE_SOCKET"
  | "PORTREEVE_HOME"
  | "XDG_STATE_HOME"
  | "HOME"
  | "macOS default";

export interface SocketLocation {
  path: string;
  source: SocketSource;
}

/**
 * Environment variables that locate the daemon socket: the only ones the bridge reads, and so
 * the only ones its permission set grants (permissions.ts).
 */
export const SOCKET_ENV_VARS = [
  "PORTREEVE_SOCKET",
  "PORTREEVE_HOME",
  "XDG_STATE_HOME",
  "HOME",
] as const;
export type SocketEnvVar = typeof SOCKET_ENV_VARS[number];

export type EnvReader = (name: SocketEnvVar) => string | undefined;

export class SocketPathError extends Error {
  override name = "SocketPathError";
}

/**
 * Resolves the daemon socket where the PortReeve daemon listens: `--socket`, else
 * `PORTREEVE_SOCKET`, else `portreeve.sock` in `PORTREEVE_HOME` (the daemon's own folder,
 * on every platform), else in the platform default folder (macOS Application Support, else
 * `${XDG_STATE_HOME:-$HOME/.local/state}/portreeve`). Empty values count as unset. Paths
 * must be absolute: the bridge cannot resolve a relative path without reading the working
 * directory, and a guess would point at the wrong daemon.
 */
export function discoverSocket(
  flag: string | undefined,
  env: EnvReader,
  os: string = Deno.build.os,
): SocketLocation {
  return fitsSocketAddress(discover(flag, env, os), os);
}

/**
 * The default socket for this user, spelled from PORTREEVE_HOME, HOME and XDG_STATE_HOME as they are, for
 * refusals to show as an example of a good path (the launcher spells the same in shell).
 */
function exampleSocket(env: EnvReader, os: string = Deno.build.os): string {
  // An absolute PORTREEVE_HOME only: a refusal's example must itself be a good path.
  const application = env("PORTREEVE_HOME");
  if (application?.startsWith("/")) {
    return `${application.endsWith("/") ? application.slice(0, -1) : application}/portreeve.sock`;
  }
  const home = env("HOME") ?? "";
  if (os === "darwin") return `${home}/Library/Application Support/Portreeve/portreeve.sock`;
  return `${env("XDG_STATE_HOME") || `${home}/.local/state`}/portreeve/portreeve.sock`;
}

function discover(flag: string | undefined, env: EnvReader, os: string): SocketLocation {
  const example = exampleSocket(env, os);
  if (flag !== undefined) {
    return { path: requireAbsolute(flag, "--socket", example), source: "flag" };
  }
  const fromEnv = env("PORTREEVE_SOCKET");
  if (fromEnv) {
    return {
      path: requireAbsolute(fromEnv, "PORTREEVE_SOCKET", example),
      source: "PORTREEVE_SOCKET",
    };
  }
  const application = env("PORTREEVE_HOME");
  if (application) {
    return {
      path: `${requireAbsolute(application, "PORTREEVE_HOME", example, "folder")}/portreeve.sock`,
      source: "PORTREEVE_HOME",
    };
  }
  const home = env("HOME");
  if (os === "darwin") {
    if (!home) throw new SocketPathError(noHomeMessage());
    const path = `${
      requireAbsolute(home, "HOME", example, "folder")
    }/Library/Application Support/Portreeve/portreeve.sock`;
    return { path, source: "macOS default" };
  }
  const state = env("XDG_STATE_HOME");
  if (state) {
    return {
      path: `${
        requireAbsolute(state, "XDG_STATE_HOME", example, "folder")
      }/portreeve/portreeve.sock`,
      source: "XDG_STATE_HOME",
    };
  }
  if (!home) throw new SocketPathError(noHomeMessage());
  return {
    path: `${
      requireAbsolute(home, "HOME", example, "folder")
    }/.local/state/portreeve/portreeve.sock`,
    source: "HOME",
  };
}

/** Reads the socket variables, treating a missing env grant as "unset" rather than crashing. */
export function denoEnv(name: SocketEnvVar): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/**
 * An absolute, grantable path, normalised. A socket path must not name a directory; a folder
 * the socket lies under (PORTREEVE_HOME, HOME, XDG_STATE_HOME) may end in `/` or be `/` itself.
 */
function requireAbsolute(
  value: string,
  origin: string,
  example: string,
  kind: "socket" | "folder" = "socket",
): string {
  if (value.length === 0) {
    throw new SocketPathError(`${origin} is empty; give an absolute socket path.`);
  }
  if (!value.startsWith("/")) {
    throw new SocketPathError(
      `${origin} must be an absolute path (got "${value}"); for example ${example}.`,
    );
  }
  if (value.includes("\0")) throw new SocketPathError(`${origin} contains a NUL byte.`);
  grantablePath(value, origin);
  const path = normalise(value);
  if (kind === "folder") return path === "/" ? "" : path;
  if (path === "/" || value.endsWith("/")) {
    throw new SocketPathError(directoryMessage(origin, value, example));
  }
  return path;
}

/**
 * Refuses a path Deno's permission flags cannot name exactly: they separate paths with commas
 * and have no escape. Every socket the bridge is granted passes through here.
 */
export function grantablePath(path: string, origin: string): string {
  if (path.includes(",")) {
    throw new SocketPathError(
      `${origin} ${path} contains a comma, which Deno's permission lists read as a separator; use a socket path without commas.`,
    );
  }
  return path;
}

/** How a refusal names where the path came from: the flag as typed, else its source. */
function originOf(location: SocketLocation): string {
  return location.source === "flag" ? "--socket" : location.source;
}

function directoryMessage(origin: string, value: string, example: string): string {
  return `${origin} ${value} names a directory: the permission grant would cover the whole tree under it; give the socket file's path, e.g. ${example}.`;
}

/**
 * Refuses a socket path whose grant could reach more than a socket: something other than a
 * socket at the name (a folder, a file, a FIFO, a device, a link) or a folder that someone
 * else could put something in (socket_site.ts). A missing socket is fine: the daemon may
 * start later. Looks only as far as this process's permissions let it.
 */
export function checkSocketSite(
  location: SocketLocation,
  disk: Disk = REAL_DISK,
  example: string = exampleSocket(denoEnv),
): SocketLocation {
  const origin = originOf(location);
  const problem = socketSiteProblem(
    location.path,
    origin,
    disk,
    directoryMessage(origin, location.path, example),
  );
  if (problem !== null) throw new SocketPathError(problem);
  return location;
}

/**
 * The socket a command uses: discovered from the flag, the environment or the platform, and
 * refused when its grant could reach more than a socket. Every command and task finds its
 * socket this way.
 */
export function locateSocket(
  flag: string | undefined,
  env: EnvReader = denoEnv,
  os: string = Deno.build.os,
  disk: Disk = REAL_DISK,
): SocketLocation {
  return checkSocketSite(discoverSocket(flag, env, os), disk, exampleSocket(env, os));
}

/**
 * Bytes of `sockaddr_un.sun_path`, the terminating NUL included: a socket path must be
 * shorter. Deno refuses a longer one before connecting ("path must be shorter than SUN_LEN"),
 * which would otherwise look like an unreachable daemon. The launcher bakes this number in.
 */
export function socketPathLimit(os: string): number {
  return os === "darwin" || os === "freebsd" || os === "openbsd" || os === "netbsd" ? 104 : 108;
}

/** A path longer than this is not repeated in the refusal: it would drown the message. */
export const SHOWN_PATH_BYTES = 200;

/**
 * Refuses a socket path the system cannot bind or connect to (it would fail on every call),
 * in one line. The installed launcher prints the same message (src/cli/install/launcher.ts).
 */
function fitsSocketAddress(
  location: SocketLocation,
  os: string = Deno.build.os,
): SocketLocation {
  const bytes = new TextEncoder().encode(location.path).length;
  const limit = socketPathLimit(os);
  if (bytes >= limit) {
    const origin = originOf(location);
    const shown = bytes <= SHOWN_PATH_BYTES ? ` ${location.path}` : "";
    throw new SocketPathError(
      `${origin}${shown} is ${bytes} bytes, too long for a Unix socket: it must be shorter than ${limit} bytes here. Use a shorter path.`,
    );
  }
  return location;
}

/** Collapses `//`, `/./` and trailing slashes without touching the filesystem. */
function normalise(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return "/" + parts.join("/");
}

function noHomeMessage(): string {
  return "Cannot find the PortReeve socket: HOME is not set. Pass --socket PATH or set PORTREEVE_SOCKET.";
}
