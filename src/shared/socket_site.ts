/**
 * Whether a socket path is safe to grant. Deno grants a path by its name, and everything below
 * that name; the system follows links when the name is opened. So the grant of `PATH` reaches
 * whatever is at `PATH` when the bridge opens it — a file, a link's target, a whole folder tree
 * if one is made there later (the write grant even lets the bridge make it itself). No flag
 * narrows that to "a socket". What keeps the grant to a socket is where it points:
 *
 * - the name itself: missing (the daemon may start later) or a socket; anything else (a file,
 *   a FIFO, a device, a folder, a link to anything) is refused;
 * - its folder, when it exists: a real folder (not a link), owned by this user or root, that
 *   neither its group nor other users can write — PortReeve itself listens only in such a
 *   folder, so no working setup is refused, and no one else can put something at the name;
 * - when the folder does not exist yet, the nearest folder above it: owned by this user or
 *   root and not writable by other users (else someone could make the folder first). A folder
 *   its group may write is accepted there, as a umask of 002 makes them; PortReeve creates
 *   its own folder private.
 *
 * The launcher (src/cli/install/launcher.ts) applies the same rules in shell, with the same
 * messages. A process confined to its socket cannot look at the folders, so it checks what its
 * grant lets it see (the name) and the launcher or task that granted it checked the rest.
 */

export type PathKind =
  | "missing"
  | "socket"
  | "folder"
  | "file"
  | "symlink"
  | "fifo"
  | "character device"
  | "block device"
  | "other";

export interface PathFacts {
  kind: PathKind;
  /** Owner's user id (-1 when the system does not say). */
  uid: number;
  /** Permission bits (0 when the system does not say). */
  mode: number;
}

/** What the checks may learn from the disk; each answers null when this process may not ask. */
export interface Disk {
  /** What is at `path` itself: a link is not followed. */
  lstat(path: string): PathFacts | null;
  /** What `path` leads to, links followed (a dangling link is missing). */
  stat(path: string): PathFacts | null;
  /** This process's user id. */
  uid(): number | null;
}

function factsOf(info: Deno.FileInfo): PathFacts {
  const kind: PathKind = info.isSymlink
    ? "symlink"
    : info.isSocket
    ? "socket"
    : info.isDirectory
    ? "folder"
    : info.isFile
    ? "file"
    : info.isFifo
    ? "fifo"
    : info.isCharDevice
    ? "character device"
    : info.isBlockDevice
    ? "block device"
    : "other";
  return { kind, uid: info.uid ?? -1, mode: info.mode ?? 0 };
}

const MISSING: PathFacts = { kind: "missing", uid: -1, mode: 0 };

/** A path this process may not look at is unknown (null); one the system will not show is missing. */
function look(read: () => Deno.FileInfo): PathFacts | null {
  try {
    return factsOf(read());
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) return null;
    return MISSING;
  }
}

/** The real disk, as far as this process's permissions let it look. */
export const REAL_DISK: Disk = {
  lstat: (path) => look(() => Deno.lstatSync(path)),
  stat: (path) => look(() => Deno.statSync(path)),
  uid() {
    try {
      return Deno.uid();
    } catch {
      return null;
    }
  },
};

const KIND_WORDS: Record<Exclude<PathKind, "missing" | "socket" | "folder">, string> = {
  file: "a regular file",
  symlink: "a symbolic link",
  fifo: "a named pipe (FIFO)",
  "character device": "a character device",
  "block device": "a block device",
  other: "neither a socket nor a file",
};

/** The folder holding `path` (absolute, normalised, not `/`). */
function parentOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}

const OTHERS_WRITE = 0o002;
const GROUP_WRITE = 0o020;

class Refusal {
  constructor(readonly message: string) {}
}

/**
 * Why the socket at `path` (absolute, normalised; named `origin` in messages) may not be
 * granted, in one line naming the path and what is wrong (see the module comment), or null.
 * `directory` is the message for a folder in place of the socket. What this process may not
 * look at is left to whoever granted it.
 */
export function socketSiteProblem(
  path: string,
  origin: string,
  disk: Disk,
  directory: string,
): string | null {
  try {
    checkSite(path, disk, directory, (text) => {
      throw new Refusal(`${origin} ${path} ${text}`);
    });
    return null;
  } catch (error) {
    if (error instanceof Refusal) return error.message;
    throw error;
  }
}

function checkSite(path: string, disk: Disk, directory: string, refuse: (text: string) => never) {
  const at = disk.lstat(path);
  if (at === null) return;
  if (at.kind === "folder") throw new Refusal(directory);
  if (at.kind === "symlink") {
    refuse(
      "is a symbolic link, not a socket: Deno grants the link's name and the system follows it " +
        "to whatever it points at, now or later. Give the path of the socket itself.",
    );
  }
  if (at.kind !== "missing" && at.kind !== "socket") {
    refuse(
      `is ${KIND_WORDS[at.kind]}, not a socket: the permission grant would let the bridge ` +
        "read and write it. Give the path of PortReeve's socket.",
    );
  }
  const folder = parentOf(path);
  const own = disk.lstat(folder);
  if (own === null) return;
  const me = disk.uid();
  if (own.kind === "symlink") {
    refuse(
      `lies in ${folder}, a symbolic link: whoever changes the link changes what the grant ` +
        "reaches, and PortReeve will not listen in a linked folder. Give the socket's path in " +
        "the real folder.",
    );
  }
  if (own.kind !== "missing") {
    if (own.kind !== "folder") refuse(notAFolder(folder));
    const who = writers(own, me, true);
    if (who !== null) {
      refuse(
        `lies in ${folder}, which ${who}: they could put their own socket or a link at that ` +
          "name, and PortReeve will not listen there. Use a folder only you can write to.",
      );
    }
    return;
  }
  let above = folder;
  let facts: PathFacts | null;
  do {
    above = parentOf(above);
    facts = disk.stat(above);
    if (facts === null) return;
  } while (facts.kind === "missing");
  if (facts.kind !== "folder") refuse(notAFolder(above));
  const who = writers(facts, me, false);
  if (who !== null) {
    refuse(
      `lies under ${above}, which ${who}: they could make the socket's folder first and put ` +
        "their own socket or a link in it. Use a folder only you can write to.",
    );
  }
}

function notAFolder(folder: string): string {
  return `lies under ${folder}, which is not a folder, so no socket can be there. Give the ` +
    "path of PortReeve's socket.";
}

/** Who besides this user (and root) could change entries in `folder`, or null for nobody. */
function writers(folder: PathFacts, me: number | null, strict: boolean): string | null {
  if (me !== null && folder.uid !== me && folder.uid !== 0) {
    return `belongs to user ${folder.uid}`;
  }
  if ((folder.mode & OTHERS_WRITE) !== 0) return "other users can write to";
  if (strict && (folder.mode & GROUP_WRITE) !== 0) return "its group can write to";
  return null;
}
