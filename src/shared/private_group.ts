/**
 * Whether a group's write to a folder lets in anyone but this user. Debian and Ubuntu give
 * every user a group of their own (USERGROUPS_ENAB in /etc/login.defs: named as the user, their
 * primary group, no one else in it) and a umask of 002, so the folders other programs make for
 * them (~/.local, ~/.local/state) are group-writable, by a group that holds only them. Debian's
 * OpenSSH accepts such a group in StrictModes (its user-group-modes patch); so does the socket
 * rule, when the user and group databases show all of it:
 *
 * - the user's own entry (by user id) gives their name and primary group, which is this group;
 * - the group's entry (by id) bears the user's name, and so does every other entry with its id,
 *   none listing a member but the user;
 * - no other account has it as its primary group.
 *
 * Anything not shown counts as shared: an unknown group, a database that cannot be listed. The
 * databases are asked as the launcher asks them (launcher_site.ts): `getent DB [KEY]`, else,
 * where there is no getent (macOS), the files in /etc, whose lines are filtered alike. macOS's
 * users are not in those files, and their primary group is `staff`, which holds everyone: never
 * accepted. The confined bridge may neither run getent nor read /etc; it never asks, since it
 * cannot see the folders either (socket_site.ts).
 */

export type AccountDb = "passwd" | "group";

/**
 * The lines of the user (`passwd`) or group database, as `getent DB [KEY]` prints them: every
 * entry, or, for a numeric `key`, at least the entries with that id; null when that fails.
 */
export type Accounts = (db: AccountDb, key?: number) => string | null;

const decoder = new TextDecoder();

/**
 * The system's databases: `getent` (found on PATH, as the launcher's shell finds it), else the
 * whole file in /etc where there is none. `getent` names the command (tests name a missing one).
 */
export function systemAccounts(db: AccountDb, key?: number, getent = "getent"): string | null {
  try {
    const args = key === undefined ? [db] : [db, String(key)];
    const out = new Deno.Command(getent, { args, stdout: "piped", stderr: "null" }).outputSync();
    return out.success ? decoder.decode(out.stdout) : null;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) return null;
  }
  try {
    return Deno.readTextFileSync(`/etc/${db}`);
  } catch {
    return null;
  }
}

/** How a refusal names a group, and why it counts as shared (null: this user's alone). */
export interface GroupVerdict {
  label: string;
  shared: string | null;
}

/** Each line's fields, split at `:` (a group's members are its fourth field on). */
function entries(text: string | null): string[][] {
  return text === null ? [] : text.split("\n").map((line) => line.split(":"));
}

/**
 * Whether group `gid` is the private group of user `me` (see the module comment). Both
 * databases are listed; an entry missing from a list (a directory that lists no one) is asked
 * for by its id. The launcher's shell asks in the same order and says the same.
 */
export function groupVerdict(gid: number, me: number, accounts: Accounts): GroupVerdict {
  const id = String(gid);
  const uid = String(me);
  const listedGroups = accounts("group");
  const withId = (text: string | null) => entries(text).filter((fields) => fields[2] === id);
  const listedOwn = withId(listedGroups);
  const own = listedOwn.length > 0 ? listedOwn : withId(accounts("group", gid));
  if (own.length === 0) {
    return { label: `group ${gid}`, shared: "the group database has no entry for it" };
  }
  const label = `group ${gid} (${own[0][0]})`;
  const shared = (why: string) => ({ label, shared: why });
  const listedUsers = accounts("passwd");
  const users = entries(listedUsers);
  const mine = users.find((fields) => fields[2] === uid) ??
    entries(accounts("passwd", me)).find((fields) => fields[2] === uid);
  if (mine === undefined) return shared(`the user database has no entry for you (user ${me})`);
  const [name, , , primary] = mine;
  if (own[0][0] !== name) return shared(`it is not named ${name}`);
  if (primary !== id) return shared("it is not your primary group");
  if (listedGroups === null) return shared("the group database cannot be listed");
  for (const fields of own) {
    if (fields[0] !== name) return shared(`group ${fields[0]} has its id too`);
    const other = fields.slice(3).join(":").split(",").find((m) => m !== "" && m !== name);
    if (other !== undefined) return shared(`it lists ${other} as a member`);
  }
  if (listedUsers === null) return shared("the user database cannot be listed");
  const other = users.find((fields) => fields[3] === id && fields[2] !== uid);
  if (other !== undefined) return shared(`it is also the primary group of ${other[0]}`);
  return { label, shared: null };
}
