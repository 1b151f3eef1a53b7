/**
 * Made-up user and group databases, answered alike to the TypeScript rule (an `Accounts`) and to
 * the launcher's shell (a stand-in `getent` put first on PATH), so that no test touches
 * /etc/passwd or /etc/group and a private group can be walked as root and as any user.
 */
import type { AccountDb, Accounts } from "../../src/shared/private_group.ts";

/** One database: the lines `getent DB` lists (null: listing fails), and lines found only by id. */
export interface Table {
  listed: string[] | null;
  byIdOnly?: string[];
}

export type Database = Record<AccountDb, Table>;

/** The lines of `table` with `key` as their third field (a user's or group's id). */
function withId(table: Table, key: number): string[] {
  return [...table.listed ?? [], ...table.byIdOnly ?? []].filter((line) =>
    line.split(":")[2] === String(key)
  );
}

const text = (lines: string[]) => lines.map((line) => `${line}\n`).join("");

/** `database` as the rule asks it: as `getent DB [KEY]` would answer (null for its failures). */
export function accountsOf(database: Database): Accounts {
  return (db, key) => {
    const table = database[db];
    if (key === undefined) return table.listed === null ? null : text(table.listed);
    const found = withId(table, key);
    return found.length === 0 ? null : text(found);
  };
}

/**
 * A stand-in `getent` for `database` in `dir` (made if missing), answering as `accountsOf` does:
 * `getent DB` prints the listed lines (exit 1 when listing fails), `getent DB ID` the lines with
 * that id (exit 2 when none). Returns PATH with `dir` first.
 */
export async function standInGetent(dir: string, database: Database): Promise<string> {
  await Deno.mkdir(dir, { recursive: true, mode: 0o755 });
  for (const db of ["passwd", "group"] as const) {
    const { listed, byIdOnly = [] } = database[db];
    await Deno.writeTextFile(`${dir}/${db}.listed`, text(listed ?? []));
    await Deno.writeTextFile(`${dir}/${db}.all`, text([...listed ?? [], ...byIdOnly]));
    if (listed === null) await Deno.writeTextFile(`${dir}/${db}.unlisted`, "");
    else await Deno.remove(`${dir}/${db}.unlisted`).catch(() => {});
  }
  await Deno.writeTextFile(`${dir}/getent`, STAND_IN, { mode: 0o755 });
  await Deno.chmod(`${dir}/getent`, 0o755);
  return `${dir}:/usr/bin:/bin`;
}

const STAND_IN = `#!/bin/sh
here=\${0%/*}
if [ $# -lt 2 ]; then
  [ ! -e "$here/$1.unlisted" ] || exit 1
  cat "$here/$1.listed"
  exit
fi
found=1
while IFS= read -r line; do
  case $line in *:*:"$2" | *:*:"$2":*) ;; *) continue ;; esac
  rest=\${line#*:}
  rest=\${rest#*:}
  [ "\${rest%%:*}" = "$2" ] || continue
  printf '%s\\n' "$line"
  found=0
done < "$here/$1.all"
exit $found
`;

/** A user `name` (uid and primary gid given) as a passwd line. */
export const user = (name: string, uid: number, gid: number) =>
  `${name}:x:${uid}:${gid}:${name}:/nonexistent:/bin/sh`;

/** A group line: name, id, members. */
export const group = (name: string, gid: number, members: string[] = []) =>
  `${name}:x:${gid}:${members.join(",")}`;

/** root's entries, unless `me` is root or `gid` root's group (they are then ada's). */
function rootOf(me: number, gid: number) {
  return {
    users: me === 0 ? [] : [user("root", 0, 0)],
    groups: gid === 0 ? [] : [group("root", 0)],
  };
}

/** The databases of a Debian-like machine where `me`, named ada, has the private group `gid`. */
export function privateGroupOf(me: number, gid: number): Database {
  const { users, groups } = rootOf(me, gid);
  return {
    passwd: { listed: [...users, user("ada", me, gid), user("bob", me + 1, gid + 2)] },
    group: { listed: [...groups, group("ada", gid), group("bob", gid + 2)] },
  };
}

/** The same machine where `gid` is a group that others share: staff, holding ada and bob. */
export function sharedGroupOf(me: number, gid: number): Database {
  const { users, groups } = rootOf(me, gid);
  return {
    passwd: { listed: [...users, user("ada", me, gid), user("bob", me + 1, gid)] },
    group: { listed: [...groups, group("staff", gid, ["ada", "bob"])] },
  };
}

/** One way the databases can show a group to the user, and what the rule makes of it. */
export interface GroupCase {
  why: string;
  database: Database;
  /** Why the group counts as shared, as the refusal says; null when it is the user's private group. */
  shared: string | null;
}

/**
 * Every way the databases can show group `gid` to user `me` (named ada): private, in every form
 * it may be written, and each reason it counts as shared, in the words the refusal uses.
 */
export function groupCases(me: number, gid: number): GroupCase[] {
  const ada = user("ada", me, gid);
  const adas = group("ada", gid);
  const bob = user("bob", me + 1, gid + 2);
  const base = (passwd: string[], groups: string[]): Database => ({
    passwd: { listed: passwd },
    group: { listed: groups },
  });
  const cases: [string, Database, string | null][] = [
    ["a private group", base([ada, bob], [adas]), null],
    [
      "a private group listing you as its one member",
      base([ada], [group("ada", gid, ["ada"])]),
      null,
    ],
    ["members written with empty items", base([ada], [group("ada", gid, ["", "ada", ""])]), null],
    [
      "entries found by id alone (a directory that lists no one)",
      { passwd: { listed: [bob], byIdOnly: [ada] }, group: { listed: [], byIdOnly: [adas] } },
      null,
    ],
    [
      "an unknown group",
      base([ada], [group("bob", gid + 2)]),
      "the group database has no entry for it",
    ],
    [
      "no entry for you",
      base([bob], [adas]),
      `the user database has no entry for you (user ${me})`,
    ],
    [
      "macOS: the primary group staff, which holds everyone",
      base([ada], [group("staff", gid, ["root"])]),
      "it is not named ada",
    ],
    [
      "a group named as you, not your primary group",
      base([user("ada", me, gid + 1)], [adas]),
      "it is not your primary group",
    ],
    [
      "another member",
      base([ada, bob], [group("ada", gid, ["ada", "bob"])]),
      "it lists bob as a member",
    ],
    [
      "another group with its id",
      base([ada], [adas, group("team", gid, ["bob"])]),
      "group team has its id too",
    ],
    [
      "another account's primary group",
      base([ada, user("bob", me + 1, gid)], [adas]),
      "it is also the primary group of bob",
    ],
    [
      "a group database that cannot be listed",
      { passwd: { listed: [ada] }, group: { listed: null, byIdOnly: [adas] } },
      "the group database cannot be listed",
    ],
    [
      "a user database that cannot be listed",
      { passwd: { listed: null, byIdOnly: [ada] }, group: { listed: [adas] } },
      "the user database cannot be listed",
    ],
  ];
  return cases.map(([why, database, shared]) => ({ why, database, shared }));
}
