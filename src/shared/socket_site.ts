/**
 * Whether a socket path is safe to grant. Deno grants a path by its name, and everything below
 * that name; the system follows links when the name is opened. So the grant of `PATH` reaches
 * whatever is at `PATH` when the bridge opens it — a file, a link's target, a whole folder tree
 * if one is made there later (the write grant even lets the bridge make it itself). No flag
 * narrows that to "a socket". What keeps the grant to a socket is where it points:
 *
 * - the name itself: missing (the daemon may start later) or a socket of this user; anything
 *   else (a file, a FIFO, a device, a folder, a link to anything, another user's socket) is
 *   refused;
 * - every folder the system passes through to reach the socket's folder, from `/` down, links
 *   followed as the system follows them (as ssh's StrictModes and gpg's home checks do): owned
 *   by this user or root and writable by no one else, unless sticky (as `/tmp` is: there only
 *   an entry's owner may move it); every link on the way owned by this user or root. Else
 *   whoever may write one of them could move the folders below it aside and put their own
 *   socket at the name. A group's write counts as no one else's only when the group is the
 *   user's private one, as the user and group databases show it (private_group.ts);
 * - the last folder of that walk — the socket's folder, or, when it is not made yet, the
 *   nearest one above it — writable by no one else at all, sticky or not (else someone could
 *   put their own socket there, or make the missing folder first). The socket's folder is
 *   also not itself a link: PortReeve listens only in a real folder of its own.
 *
 * The launcher (src/cli/install/launcher.ts) applies the same rules in shell, with the same
 * messages. A process confined to its socket cannot look at the folders, so it checks what its
 * grant lets it see (the name) and the launcher or task that granted it checked the rest.
 */
import { type Accounts, type GroupVerdict, groupVerdict, systemAccounts } from "./private_group.ts";

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
  /** Group id (-1 when the system does not say). */
  gid: number;
  /** Permission bits (0 when the system does not say). */
  mode: number;
}

/** What the checks may learn from the disk; each answers null when this process may not ask. */
export interface Disk {
  /** What is at `path` itself: a link is not followed. */
  lstat(path: string): PathFacts | null;
  /** What the link at `path` holds, as written; undefined when it is gone. */
  readLink(path: string): string | null | undefined;
  /** This process's user id. */
  uid(): number | null;
  /** The user and group databases, to tell a private group from a shared one. */
  accounts: Accounts;
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
  return { kind, uid: info.uid ?? -1, gid: info.gid ?? -1, mode: info.mode ?? 0 };
}

const MISSING: PathFacts = { kind: "missing", uid: -1, gid: -1, mode: 0 };

/** A path this process may not look at is unknown (null); one the system will not show is missing. */
function look(read: () => Deno.FileInfo): PathFacts | null {
  try {
    return factsOf(read());
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) return null;
    return MISSING;
  }
}

/** This process's user id, or null when it may not ask (no `--allow-sys=uid`). */
export function ownUid(): number | null {
  try {
    return Deno.uid();
  } catch {
    return null;
  }
}

/** The real disk, as far as this process's permissions let it look. */
export const REAL_DISK: Disk = {
  lstat: (path) => look(() => Deno.lstatSync(path)),
  readLink(path) {
    try {
      return Deno.readLinkSync(path);
    } catch (error) {
      return error instanceof Deno.errors.NotCapable ? null : undefined;
    }
  },
  uid: ownUid,
  accounts: systemAccounts,
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
const STICKY = 0o1000;

/** Links followed on the way before the walk gives up (Linux's own limit). */
export const MAX_LINKS = 40;

class Refusal {
  constructor(readonly message: string) {}
}

/**
 * Why the socket at `path` (absolute, normalised; named `origin` in messages) may not be
 * granted, in one line naming the path, what is wrong and the fix (see the module comment), or
 * null. `directory` is the message for a folder in place of the socket. What this process may
 * not look at is left to whoever granted it.
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

type Refuse = (text: string) => never;

function checkSite(path: string, disk: Disk, directory: string, refuse: Refuse) {
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
  const uid = disk.uid();
  if (at.kind === "socket" && uid !== null && at.uid !== uid) {
    refuse(
      `is a socket of user ${at.uid}, not yours: PortReeve listens on a socket of the user it ` +
        "runs as, so someone else's program listens there. Give the path of your own " +
        "daemon's socket.",
    );
  }
  const folder = parentOf(path);
  const own = disk.lstat(folder);
  if (own === null) return;
  if (own.kind === "symlink") {
    refuse(
      `lies in ${folder}, a symbolic link: whoever changes the link changes what the grant ` +
        "reaches, and PortReeve will not listen in a linked folder. Give the socket's path in " +
        "the real folder.",
    );
  }
  walk(folder, disk, { uid, group: groupsOf(uid, disk.accounts) }, refuse);
}

/** Whose folders the walk judges: this user's id (null: not known) and what a group is to them. */
interface Me {
  uid: number | null;
  group(gid: number): GroupVerdict;
}

/** `groupVerdict` for user `uid`, each group asked about once per walk. */
function groupsOf(uid: number | null, accounts: Accounts): Me["group"] {
  const known = new Map<number, GroupVerdict>();
  return (gid) => {
    if (uid === null) return { label: `group ${gid}`, shared: "your user id is not known here" };
    const verdict = known.get(gid) ?? groupVerdict(gid, uid, accounts);
    known.set(gid, verdict);
    return verdict;
  };
}

/**
 * Follows `folder` from `/` as the system looks it up, links included, judging each folder it
 * passes through and each link, and the last folder it reaches (the socket's folder, or the
 * nearest one above it not made yet) more strictly. The launcher's shell walk is the same.
 */
function walk(folder: string, disk: Disk, me: Me, refuse: Refuse) {
  const todo = folder.split("/");
  let here = "/";
  let facts = disk.lstat(here);
  let links = 0;
  while (facts !== null) {
    const name = todo.shift();
    if (name === undefined) return last(here, facts, "in", me, refuse);
    if (name === "" || name === ".") continue;
    if (name === "..") {
      here = parentOf(here);
      facts = disk.lstat(here);
      continue;
    }
    const next = here === "/" ? `/${name}` : `${here}/${name}`;
    const found = disk.lstat(next);
    if (found === null) return;
    if (found.kind === "missing") return last(here, facts, "under", me, refuse);
    if (found.kind === "symlink") {
      passing(here, facts, me, refuse);
      if (me.uid !== null && found.uid !== me.uid && found.uid !== 0) {
        refuse(
          `lies under ${next}, a symbolic link of user ${found.uid}: they could make it lead ` +
            "elsewhere. Give the path without the link (pwd -P shows it), or have root own it.",
        );
      }
      if (++links > MAX_LINKS) {
        refuse(
          `lies under ${next}, past more than ${MAX_LINKS} symbolic links (a loop?). Give ` +
            "the socket's real path.",
        );
      }
      const target = disk.readLink(next);
      if (target === null) return;
      if (target === undefined) return last(here, facts, "under", me, refuse);
      todo.unshift(...target.split("/"));
      if (target.startsWith("/")) {
        here = "/";
        facts = disk.lstat(here);
      }
      continue;
    }
    if (found.kind !== "folder") {
      refuse(
        `lies under ${next}, which is not a folder, so no socket can be there. Give the path ` +
          "of PortReeve's socket.",
      );
    }
    passing(here, facts, me, refuse);
    here = next;
    facts = found;
  }
}

/** A folder the walk passes through: yours or root's, and only sticky if others may write. */
function passing(here: string, facts: PathFacts, me: Me, refuse: Refuse) {
  const judged = judge(here, facts, me, false);
  if (judged !== null) {
    refuse(
      `lies under ${here}, which ${judged.who}: they could move the folders below it aside ` +
        `and put their own socket at this path. ${judged.fix}`,
    );
  }
}

/**
 * The last folder the walk reaches: "in", the socket's folder, or "under", the nearest one
 * above it not made yet. No one else may write it, sticky or not.
 */
function last(
  here: string,
  facts: PathFacts,
  where: "in" | "under",
  me: Me,
  refuse: Refuse,
) {
  const judged = judge(here, facts, me, true);
  if (judged === null) return;
  const risk = where === "in"
    ? "they could put their own socket or a link at that name, and PortReeve will not listen there."
    : "they could make the socket's folder first and put their own socket or a link in it.";
  refuse(`lies ${where} ${here}, which ${judged.who}: ${risk} ${judged.fix}`);
}

/**
 * Who besides this user (and root) could change entries in the folder `here`, and the fix;
 * null for nobody. `strict`: a sticky bit does not help (the last folder of the walk). A
 * group's write is no one else's when the group is the user's private one.
 */
function judge(
  here: string,
  facts: PathFacts,
  me: Me,
  strict: boolean,
): { who: string; fix: string } | null {
  if (me.uid !== null && facts.uid !== me.uid && facts.uid !== 0) {
    return {
      who: `belongs to user ${facts.uid}`,
      fix:
        `Use a socket path whose folders all belong to you or root (or have root chown ${here}).`,
    };
  }
  if (!strict && (facts.mode & STICKY) !== 0) return null;
  const who = (facts.mode & OTHERS_WRITE) !== 0
    ? "other users can write to"
    : (facts.mode & GROUP_WRITE) !== 0
    ? sharedGroup(me.group(facts.gid))
    : null;
  if (who === null) return null;
  return {
    who,
    fix: strict
      ? `Use a folder only you can write to (for a folder of yours: chmod go-w ${here}).`
      : `Fix: chmod go-w ${here}, or chmod +t ${here} (as /tmp has) if others must write there.`,
  };
}

/** Who a group's write lets in, in words; null when it is the user's private group. */
function sharedGroup({ label, shared }: GroupVerdict): string | null {
  return shared === null ? null : `${label} can write to, a group not yours alone (${shared})`;
}
