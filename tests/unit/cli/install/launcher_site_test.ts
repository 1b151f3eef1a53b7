/**
 * The launcher grants a socket and nothing else (src/shared/socket_site.ts, mirrored in shell by
 * src/cli/install/launcher_site.ts): one table walks every kind of path that can stand at the
 * socket's name and around it — nothing yet, a live socket, a regular file, /etc/passwd, a FIFO,
 * a character device, a block device, a folder, links to each, a dangling link, a linked
 * folder, folders others can write, folders of another user, folders only the user's private
 * group may write, a file in place of a folder — and each is run through the real launcher under
 * /bin/sh, dash and bash, and through `locateSocket`. Both must grant exactly the same socket or
 * refuse in the same one line that names the path and says what is there. The user and group
 * databases are made up (tests/support/accounts.ts), answered to both alike.
 */
import assert from "node:assert/strict";
import { confinedFlags } from "../../../../src/shared/permissions.ts";
import { locateSocket, SocketPathError } from "../../../../src/shared/socket_location.ts";
import {
  launchEverywhere,
  layoutFor,
  socketFlag,
  testDisk,
  userId,
} from "../../../support/launcher_rig.ts";
import type { Disk } from "../../../../src/shared/socket_site.ts";
import { symlink } from "../../../support/symlink.ts";
import {
  accountsOf,
  groupCases,
  privateGroupOf,
  sharedGroupOf,
  standInGetent,
} from "../../../support/accounts.ts";

interface Row {
  /** What stands at the path, in words. */
  kind: string;
  /** The socket path, given by --socket (or by `env` when set). */
  path: string;
  env?: Record<string, string>;
  /** Whose the folders' group is: the user's private group, or one others share (the default). */
  group?: "private" | "shared";
  /** "granted", or what the one-line refusal must say besides the path. */
  expect: "granted" | RegExp;
}

const NOT_SOCKET = (what: string) => new RegExp(`is ${what}, not a socket: `);
const LINK = /is a symbolic link, not a socket: Deno grants the link's name/;
const DIRECTORY = /names a directory: the permission grant would cover the whole tree/;

/**
 * A block device this machine has, or null. Deno lets no process without --allow-all look
 * into /dev (but for a few files such as /dev/null), so `ls` finds it.
 */
async function blockDevice(): Promise<string | null> {
  const out = await new Deno.Command("ls", { args: ["-l", "/dev"], stdout: "piped" }).output();
  const line = new TextDecoder().decode(out.stdout).split("\n").find((l) => l.startsWith("b"));
  return line === undefined ? null : `/dev/${line.split(/\s+/).at(-1)}`;
}

async function mkfifo(path: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.ok(made.success, `mkfifo ${path}`);
}

/** The group id of `path`'s folder (its files' group here). */
function groupOf(path: string): number {
  const gid = Deno.statSync(path).gid;
  assert.ok(gid !== null, "the system gives a folder's group");
  return gid;
}

/** Folders and things on disk for the table; returns the rows and what to close afterwards. */
async function world(dir: string): Promise<{ rows: Row[]; listeners: Deno.Listener[] }> {
  const at = (name: string) => `${dir}/${name}`;
  const gid = groupOf(dir);
  const staff = (where: "in" | "under", folder: string) =>
    new RegExp(
      `lies ${where} \\S+/${folder}, which group ${gid} \\(staff\\) can write to, a group not ` +
        `yours alone \\(it is not named ada\\): they could`,
    );
  await Deno.mkdir(at("private"), { mode: 0o700 });
  const live = at("private/portreeve.sock");
  const listener = Deno.listen({ transport: "unix", path: live });
  await Deno.writeTextFile(at("private/file"), "not a socket\n");
  await mkfifo(at("private/fifo"));
  await Deno.mkdir(at("private/folder"));
  await symlink(live, at("private/link-to-socket"));
  await symlink("/etc/passwd", at("private/link-to-passwd"));
  await symlink(at("private/folder"), at("private/link-to-folder"));
  await symlink(at("private/gone"), at("private/dangling"));
  await symlink(at("private"), at("linked-folder"));
  for (
    const [name, mode] of [
      ["group", 0o770],
      ["shared", 0o1777],
      ["loose", 0o775],
      ["open", 0o777],
    ] as const
  ) {
    await Deno.mkdir(at(name));
    await Deno.chmod(at(name), mode);
  }
  for (const name of ["open/private", "shared/private"]) {
    await Deno.mkdir(at(name), { mode: 0o700 });
  }
  await Deno.mkdir(at("ubuntu/.local/state"), { recursive: true, mode: 0o700 });
  for (const name of ["ubuntu/.local", "ubuntu/.local/state"]) await Deno.chmod(at(name), 0o775);
  await Deno.mkdir(at("real/private"), { recursive: true, mode: 0o700 });
  const via = Deno.listen({ transport: "unix", path: at("real/private/portreeve.sock") });
  await symlink(at("real"), at("via"));
  await symlink(at("open"), at("via-open"));
  await symlink(at("loose"), at("via-loose"));
  await symlink(at("loop"), at("loop"));
  const rows: Row[] = [
    { kind: "nothing yet, in a private folder", path: at("private/later.sock"), expect: "granted" },
    { kind: "a live socket", path: live, expect: "granted" },
    {
      kind: "a folder not made yet, under a private one",
      path: at("private/not-yet/portreeve.sock"),
      expect: "granted",
    },
    {
      kind: "a folder not made yet, under one a shared group may write (umask 002)",
      path: at("loose/not-yet/portreeve.sock"),
      expect: staff("under", "loose"),
    },
    {
      kind: "a folder not made yet, under one only your private group may write (umask 002)",
      path: at("loose/not-yet/portreeve.sock"),
      group: "private",
      expect: "granted",
    },
    {
      kind: "the default socket, ~/.local and ~/.local/state made 0775 (Debian, Ubuntu)",
      path: at("ubuntu/.local/state/portreeve/portreeve.sock"),
      env: { HOME: at("ubuntu") },
      group: "private",
      expect: "granted",
    },
    {
      kind: "the default socket, ~/.local/state made 0775 in a group others share",
      path: at("ubuntu/.local/state/portreeve/portreeve.sock"),
      env: { HOME: at("ubuntu") },
      expect: staff("under", "ubuntu/.local"),
    },
    {
      kind: "a private folder inside one everyone may write, without the sticky bit",
      path: at("open/private/x.sock"),
      expect: /lies under \S+\/open, which other users can write to: they could move the folders/,
    },
    {
      kind: "a private folder inside one everyone may write, sticky (as /tmp)",
      path: at("shared/private/x.sock"),
      expect: "granted",
    },
    {
      kind: "a live socket through a link of yours to a private folder, on the way",
      path: at("via/private/portreeve.sock"),
      expect: "granted",
    },
    {
      kind: "a private folder through a link of yours into one everyone may write",
      path: at("via-open/private/x.sock"),
      expect: /lies under \S+\/open, which other users can write to: they could move the folders/,
    },
    {
      kind:
        "a folder not made yet, through a link of yours into one only your private group may write",
      path: at("via-loose/not-yet/x.sock"),
      group: "private",
      expect: "granted",
    },
    {
      kind: "a folder not made yet, through a link of yours into one a shared group may write",
      path: at("via-loose/not-yet/x.sock"),
      expect: staff("under", "loose"),
    },
    {
      kind: "a socket beyond a loop of links",
      path: at("loop/x/y.sock"),
      expect: /lies under \S+\/loop, past more than 40 symbolic links \(a loop\?\)/,
    },
    {
      kind: "a live socket found through PORTREEVE_HOME",
      path: live,
      env: { PORTREEVE_HOME: at("private/../private") },
      expect: "granted",
    },
    { kind: "a regular file", path: at("private/file"), expect: NOT_SOCKET("a regular file") },
    { kind: "/etc/passwd", path: "/etc/passwd", expect: NOT_SOCKET("a regular file") },
    {
      kind: "a regular file named by PORTREEVE_SOCKET",
      path: at("private/file"),
      env: { PORTREEVE_SOCKET: at("private/file") },
      expect: /^PORTREEVE_SOCKET \S+ is a regular file, not a socket/,
    },
    { kind: "a FIFO", path: at("private/fifo"), expect: NOT_SOCKET("a named pipe \\(FIFO\\)") },
    { kind: "/dev/null", path: "/dev/null", expect: NOT_SOCKET("a character device") },
    { kind: "a folder", path: at("private/folder"), expect: DIRECTORY },
    { kind: "a link to a live socket", path: at("private/link-to-socket"), expect: LINK },
    { kind: "a link to /etc/passwd", path: at("private/link-to-passwd"), expect: LINK },
    { kind: "a link to a folder", path: at("private/link-to-folder"), expect: LINK },
    { kind: "a dangling link", path: at("private/dangling"), expect: LINK },
    {
      kind: "a live socket in a linked folder",
      path: at("linked-folder/portreeve.sock"),
      expect: /lies in \S+\/linked-folder, a symbolic link: whoever changes the link/,
    },
    {
      kind: "nothing yet, in a folder a shared group may write",
      path: at("group/x.sock"),
      expect: staff("in", "group"),
    },
    {
      kind: "nothing yet, in a folder only your private group may write",
      path: at("group/x.sock"),
      group: "private",
      expect: "granted",
    },
    {
      kind: "nothing yet, in a folder everyone may write (sticky, as /tmp)",
      path: at("shared/x.sock"),
      expect: /lies in \S+\/shared, which other users can write to: they could put their own/,
    },
    {
      kind: "a folder not made yet, under one everyone may write",
      path: at("shared/not-yet/x.sock"),
      expect: /lies under \S+\/shared, which other users can write to: they could make the/,
    },
    {
      kind: "a socket under a regular file",
      path: at("private/file/x.sock"),
      expect: /lies under \S+\/private\/file, which is not a folder, so no socket can be there/,
    },
    {
      kind: "a socket two folders under a regular file",
      path: at("private/file/a/x.sock"),
      expect: /lies under \S+\/private\/file, which is not a folder/,
    },
  ];
  const block = await blockDevice();
  if (block === null) console.log("no block device in /dev here: that kind is not walked");
  else rows.push({ kind: "a block device", path: block, expect: NOT_SOCKET("a block device") });
  if (Deno.statSync("/tmp").mode! & 0o002) {
    rows.push({
      kind: "nothing yet, in /tmp",
      path: "/tmp/prmcp-site-check.sock",
      expect: /lies in \/tmp, which other users can write to/,
    });
  }
  const theirs: Deno.Listener[] = [];
  if (await userId() === 0) {
    // Root can give a folder away: another user's folder, in place and above; their socket;
    // their link on the way.
    await Deno.mkdir(at("theirs"), { mode: 0o755 });
    await Deno.chown(at("theirs"), 65534, 65534);
    theirs.push(Deno.listen({ transport: "unix", path: at("private/their.sock") }));
    await Deno.chown(at("private/their.sock"), 65534, 65534);
    await symlink(at("real"), at("their-link"));
    const chowned = await new Deno.Command("chown", { args: ["-h", "65534", at("their-link")] })
      .output();
    assert.ok(chowned.success, "chown -h");
    rows.push(
      {
        kind: "a live socket of another user",
        path: at("private/their.sock"),
        expect: /is a socket of user 65534, not yours: PortReeve listens on a socket of the user/,
      },
      {
        kind: "a private folder reached through another user's link",
        path: at("their-link/private/portreeve.sock"),
        expect: /lies under \S+\/their-link, a symbolic link of user 65534: they could make it/,
      },
      {
        kind: "nothing yet, in another user's folder",
        path: at("theirs/x.sock"),
        expect: /lies in \S+\/theirs, which belongs to user 65534: they could put their own/,
      },
      {
        kind: "a folder not made yet, under another user's folder",
        path: at("theirs/not-yet/x.sock"),
        expect: /lies under \S+\/theirs, which belongs to user 65534: they could make/,
      },
    );
  } else {
    console.log("not root: another user's folder cannot be made here, so it is not walked");
  }
  return { rows, listeners: [listener, via, ...theirs] };
}

/**
 * Runs `args` (with `env`) through the launcher under every shell, as `user` when given, and
 * through `locateSocket` on `disk`. When `granted`, both must grant exactly `path`; otherwise
 * both must refuse in the same one line, starting nothing, and that line is returned.
 */
async function judgedAlike(
  launcher: { launcher: string; bundle: string },
  path: string,
  args: string[],
  env: Record<string, string>,
  disk: Disk,
  where: string,
  granted: boolean,
  user?: number,
): Promise<string | null> {
  const got = await launchEverywhere(launcher.launcher, args, env, where, user);
  let verdict: string;
  try {
    verdict = locateSocket(socketFlag(args), (name) => env[name], "linux", disk).path;
  } catch (error) {
    if (!(error instanceof SocketPathError)) throw error;
    verdict = error.message;
  }
  if (granted) {
    assert.equal(verdict, path, `${where}: locateSocket grants it`);
    assert.equal(got.code, 0, `${where}: ${got.stderr}`);
    assert.deepEqual(
      got.stdout.split("\0").slice(0, -1),
      ["1", "run", ...confinedFlags(path, "bundle"), launcher.bundle, ...args],
      where,
    );
    return null;
  }
  assert.ok(!verdict.includes("\n"), `${where}: one line`);
  assert.equal(got.stderr, `portreeve-mcp: ${verdict}\n`, `${where}: the same line`);
  assert.equal(got.code, 2, where);
  assert.equal(got.stdout, "", `${where}: nothing started`);
  return verdict;
}

Deno.test("launcher and locateSocket grant a socket or nothing yet, and refuse every other kind", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-site-" }));
  const { rows, listeners } = await world(dir);
  try {
    const layout = await layoutFor(`${dir}/install`, "linux");
    const me = await userId();
    const gid = groupOf(dir);
    const databases = {
      private: privateGroupOf(me, gid),
      shared: sharedGroupOf(me, gid),
    };
    const paths = {
      private: await standInGetent(`${dir}/getent-private`, databases.private),
      shared: await standInGetent(`${dir}/getent-shared`, databases.shared),
    };
    for (const { kind, path, env, group = "shared", expect } of rows) {
      const args = env === undefined ? ["serve", "--socket", path] : ["serve"];
      const environment: Record<string, string> = {
        HOME: `${dir}/home`,
        PATH: paths[group],
        ...env,
      };
      const disk = { ...await testDisk(), accounts: accountsOf(databases[group]) };
      const granted = expect === "granted";
      const refusal = await judgedAlike(layout, path, args, environment, disk, kind, granted);
      if (refusal === null || expect === "granted") continue;
      assert.match(refusal, expect, `${kind}: the refusal`);
      assert.ok(refusal.includes(path), `${kind}: the refusal names the path`);
    }
  } finally {
    for (const listener of listeners) listener.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** Who may own a folder in the walk below, as this test can make them. */
type Owner = "user" | "root" | "other";

/** One folder's state: its owner, whether its group or others may write it, and the sticky bit. */
interface FolderState {
  owner: Owner;
  mode: number;
  /** Whose its group is (the folder's group is the user's, as the databases tell it). */
  group: "private" | "shared";
}

/**
 * Every state a folder on the way can be in, as far as this machine lets the test make it:
 * owner (you, root, another user: only root can give a folder away) × write for group and
 * others × sticky × (where the group may write) the group the user's private one or shared.
 * Search stays open to everyone so the launcher, run as "the user", can reach what lies below
 * another owner's folder.
 */
function folderStates(owners: readonly Owner[]): FolderState[] {
  return owners.flatMap((owner) =>
    [0o755, 0o775, 0o757, 0o777].flatMap((mode) =>
      [0, 0o1000].flatMap((sticky) =>
        ((mode & 0o020) !== 0 ? ["private", "shared"] as const : ["shared"] as const).map((
          group,
        ) => ({ owner, mode: mode | sticky, group }))
      )
    )
  );
}

/** Whether the rule lets a socket be granted through a folder in `state`; `last`: nothing above it counts. */
function safe({ owner, mode, group }: FolderState, last: boolean): boolean {
  if (owner === "other") return false;
  const othersMay = (mode & 0o002) !== 0 || ((mode & 0o020) !== 0 && group === "shared");
  return !othersMay || (!last && (mode & 0o1000) !== 0);
}

/**
 * Where the walks below run: a temporary folder "the user" owns (as root, another account, so
 * that root and a third user can own folders too; otherwise whoever runs the test), the
 * launcher, and the user's and its group's ids.
 */
async function walkWorld(prefix: string) {
  const root = await userId() === 0;
  const user = root ? 65534 : await userId();
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  if (root) await Deno.chown(dir, user, user);
  const gid = groupOf(dir);
  const layout = await layoutFor(`${dir}/install`, "linux");
  return { root, user, gid, dir, layout, as: root ? user : undefined };
}

Deno.test("every folder on the way to the socket, in every state, at every depth: launcher and locateSocket agree with the rule", async () => {
  const { root, user, gid, dir, layout, as } = await walkWorld("prmcp-walk-");
  const uids: Record<Owner, number> = { user, root: 0, other: 65533 };
  const owners: Owner[] = root ? ["user", "root", "other"] : ["user"];
  if (!root) console.log("not root: folders of root and of another user cannot be made here");
  try {
    const databases = { private: privateGroupOf(user, gid), shared: sharedGroupOf(user, gid) };
    const paths = {
      private: await standInGetent(`${dir}/getent-private`, databases.private),
      shared: await standInGetent(`${dir}/getent-shared`, databases.shared),
    };
    const seen = await testDisk();
    // dir/a/b/c/s.sock: c is the socket's folder; a and b are folders on the way to it.
    const chain = ["a", "a/b", "a/b/c"].map((name) => `${dir}/${name}`);
    const socket = `${chain[2]}/s.sock`;
    let cases = 0;
    for (
      const [depth, missing] of [[0, false], [1, false], [2, false], [0, true], [1, true]] as const
    ) {
      for (const state of folderStates(owners)) {
        for (const [i, folder] of chain.entries()) {
          if (missing && i === 2) break;
          await Deno.mkdir(folder, { mode: 0o700 });
          if (root) await Deno.chown(folder, user, gid);
        }
        const varied = chain[depth];
        await Deno.chmod(varied, state.mode);
        if (root) await Deno.chown(varied, uids[state.owner], gid);
        const last = depth === (missing ? 1 : 2);
        const where = `${varied.slice(dir.length)} ${state.owner} ${
          state.mode.toString(8)
        } ${state.group} group${missing ? ", the socket's folder not made yet" : ""}`;
        const args = ["serve", "--socket", socket];
        const env = { HOME: `${dir}/home`, PATH: paths[state.group] };
        const disk = { ...seen, uid: () => user, accounts: accountsOf(databases[state.group]) };
        const granted = safe(state, last);
        const refusal = await judgedAlike(layout, socket, args, env, disk, where, granted, as);
        if (refusal !== null) {
          const who = state.owner === "other"
            ? `belongs to user ${uids.other}`
            : (state.mode & 0o002) !== 0
            ? "other users can write to"
            : `group ${gid} (staff) can write to, a group not yours alone (it is not named ada)`;
          const place = missing || !last ? "under" : "in";
          assert.ok(
            refusal.startsWith(`--socket ${socket} lies ${place} ${varied}, which ${who}: `),
            `${where}: ${refusal}`,
          );
        }
        await Deno.remove(chain[0], { recursive: true });
        cases++;
      }
    }
    assert.equal(cases, 5 * folderStates(owners).length);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A folder with each of `commands` (as this machine's sh finds them) and nothing else: no getent. */
async function toolsWithout(dir: string, commands: string[]): Promise<string> {
  await Deno.mkdir(dir, { mode: 0o755 });
  for (const command of commands) {
    const found = await new Deno.Command("sh", {
      args: ["-c", 'command -v "$0"', command],
      stdout: "piped",
    }).output();
    assert.ok(found.success, `${command} is on this machine`);
    await symlink(new TextDecoder().decode(found.stdout).trim(), `${dir}/${command}`);
  }
  return dir;
}

/** The system's file for `db` as `cat` prints it (this test may not read /etc itself in .ci/run). */
function catEtc(db: "passwd" | "group"): string | null {
  const out = new Deno.Command("cat", { args: [`/etc/${db}`], stdout: "piped" }).outputSync();
  return out.success ? new TextDecoder().decode(out.stdout) : null;
}

Deno.test("a folder its group may write: granted only for the user's private group, and every reason a group counts as shared is named alike", async () => {
  const { user: me, gid, dir, layout, as } = await walkWorld("prmcp-group-");
  try {
    // dir/home/run/s.sock: run, the socket's folder, is the user's and its group may write it.
    const run = `${dir}/home/run`;
    await Deno.mkdir(run, { recursive: true, mode: 0o700 });
    await Deno.chmod(run, 0o770);
    if (as !== undefined) await Deno.chown(`${dir}/home`, me, gid);
    if (as !== undefined) await Deno.chown(run, me, gid);
    const socket = `${run}/s.sock`;
    const rows = groupCases(me, gid);
    const seen = await testDisk();
    for (const [i, { why, database, shared }] of rows.entries()) {
      const env = {
        HOME: `${dir}/home`,
        PATH: await standInGetent(`${dir}/getent-${i}`, database),
      };
      const disk = { ...seen, uid: () => me, accounts: accountsOf(database) };
      const args = ["serve", "--socket", socket];
      const refusal = await judgedAlike(layout, socket, args, env, disk, why, shared === null, as);
      if (refusal === null || shared === null) continue;
      const label = shared.startsWith("the group database has no") ? `${gid}` : `${gid} \\(\\w+\\)`;
      assert.match(
        refusal,
        new RegExp(
          `^--socket \\S+ lies in \\S+/home/run, which group ${label} can write to, a group not ` +
            `yours alone \\(${shared.replace(/[()]/g, "\\$&")}\\): they could put their own`,
        ),
        why,
      );
    }
    // Where there is no getent (macOS), both read the files in /etc, alike.
    const tools = await toolsWithout(`${dir}/tools`, ["ls", "id", "readlink", "cat", "setpriv"]);
    const etc = { ...seen, uid: () => me, accounts: catEtc };
    const args = ["serve", "--socket", socket];
    const env = { HOME: `${dir}/home`, PATH: tools };
    let granted = true;
    try {
      locateSocket(socket, () => undefined, "linux", etc);
    } catch {
      granted = false;
    }
    await judgedAlike(layout, socket, args, env, etc, "no getent: /etc", granted, as);
    // Each group is judged for itself: your private group's write on the way vouches for no
    // other group's below it (only root can give a folder another group here).
    if (as === undefined) {
      console.log("not root: a folder of another group cannot be made here, so it is not walked");
      return;
    }
    const { why, database } = rows[0];
    await Deno.chmod(`${dir}/home`, 0o775);
    await Deno.chown(run, me, gid + 2);
    const two = `${why} on the way, an unknown group's on the socket's folder`;
    const mixed = { ...seen, uid: () => me, accounts: accountsOf(database) };
    const path = { HOME: `${dir}/home`, PATH: await standInGetent(`${dir}/getent-0`, database) };
    const refusal = await judgedAlike(layout, socket, args, path, mixed, two, false, as);
    assert.match(refusal ?? "", new RegExp(`lies in \\S+/home/run, which group ${gid + 2} can`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
