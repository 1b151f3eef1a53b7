/**
 * The launcher grants a socket and nothing else (src/shared/socket_site.ts, mirrored in shell by
 * src/cli/install/launcher_site.ts): one table walks every kind of path that can stand at the
 * socket's name and around it — nothing yet, a live socket, a regular file, /etc/passwd, a FIFO,
 * a character device, a block device, a folder, links to each, a dangling link, a linked
 * folder, folders others can write, folders of another user, a file in place of a folder — and
 * each is run through the real launcher under /bin/sh, dash and bash, and through
 * `locateSocket`. Both must grant exactly the same socket or refuse in the same one line that
 * names the path and says what is there.
 */
import assert from "node:assert/strict";
import { confinedFlags } from "../../../../src/shared/permissions.ts";
import { locateSocket, SocketPathError } from "../../../../src/shared/socket_location.ts";
import { launchEverywhere, layoutFor, testDisk, userId } from "../../../support/launcher_rig.ts";
import { symlink } from "../../../support/symlink.ts";

interface Row {
  /** What stands at the path, in words. */
  kind: string;
  /** The socket path, given by --socket (or by `env` when set). */
  path: string;
  env?: Record<string, string>;
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

/** Folders and things on disk for the table; returns the rows and what to close afterwards. */
async function world(dir: string): Promise<{ rows: Row[]; listener: Deno.Listener }> {
  const at = (name: string) => `${dir}/${name}`;
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
  for (const [name, mode] of [["group", 0o770], ["shared", 0o1777], ["loose", 0o775]] as const) {
    await Deno.mkdir(at(name));
    await Deno.chmod(at(name), mode);
  }
  const rows: Row[] = [
    { kind: "nothing yet, in a private folder", path: at("private/later.sock"), expect: "granted" },
    { kind: "a live socket", path: live, expect: "granted" },
    {
      kind: "a folder not made yet, under a private one",
      path: at("private/not-yet/portreeve.sock"),
      expect: "granted",
    },
    {
      kind: "a folder not made yet, under one its group may write (umask 002)",
      path: at("loose/not-yet/portreeve.sock"),
      expect: "granted",
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
      kind: "nothing yet, in a folder its group may write",
      path: at("group/x.sock"),
      expect: /lies in \S+\/group, which its group can write to: they could put their own/,
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
  if (await userId() === 0) {
    // Root can give a folder away: another user's folder, in place and above.
    await Deno.mkdir(at("theirs"), { mode: 0o755 });
    await Deno.chown(at("theirs"), 65534, 65534);
    rows.push(
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
  return { rows, listener };
}

Deno.test("launcher and locateSocket grant a socket or nothing yet, and refuse every other kind", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-site-" }));
  const { rows, listener } = await world(dir);
  try {
    const layout = await layoutFor(`${dir}/install`, "linux");
    const disk = await testDisk();
    for (const { kind, path, env, expect } of rows) {
      const args = env === undefined ? ["serve", "--socket", path] : ["serve"];
      const environment: Record<string, string> = { HOME: `${dir}/home`, ...env };
      const got = await launchEverywhere(layout.launcher, args, environment, kind);
      if (disk.lstat(path) === null) {
        // Deno lets this test look no more than the bridge: only the launcher can tell.
        assert.ok(expect !== "granted", kind);
        assert.match(got.stderr, expect, kind);
        assert.match(got.stderr, new RegExp(`^portreeve-mcp: --socket ${path} [^\\n]+\\n$`));
        assert.equal(got.code, 2, kind);
        continue;
      }
      let verdict: string;
      try {
        verdict = locateSocket(args[2], (name) => environment[name], "linux", disk).path;
        assert.equal(verdict, path, kind);
      } catch (error) {
        if (!(error instanceof SocketPathError)) throw error;
        verdict = error.message;
      }
      if (expect === "granted") {
        assert.equal(verdict, path, `${kind}: locateSocket grants it`);
        assert.equal(got.code, 0, `${kind}: ${got.stderr}`);
        assert.deepEqual(
          got.stdout.split("\0").slice(0, -1),
          ["1", "run", ...confinedFlags(path, "bundle"), layout.bundle, ...args],
          kind,
        );
        continue;
      }
      assert.match(verdict, expect, `${kind}: locateSocket's refusal`);
      assert.ok(verdict.includes(path), `${kind}: the refusal names the path`);
      assert.ok(!verdict.includes("\n"), `${kind}: one line`);
      assert.equal(got.stderr, `portreeve-mcp: ${verdict}\n`, `${kind}: the same line`);
      assert.equal(got.code, 2, kind);
      assert.equal(got.stdout, "", `${kind}: nothing started`);
    }
  } finally {
    listener.close();
    await Deno.remove(dir, { recursive: true });
  }
});
