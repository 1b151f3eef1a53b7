import assert from "node:assert/strict";
import {
  checkSocketSite,
  discoverSocket,
  locateSocket,
  SocketPathError,
} from "../../../src/shared/socket_location.ts";
import type { Disk, PathFacts } from "../../../src/shared/socket_site.ts";
import type { Accounts } from "../../../src/shared/private_group.ts";

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("flag wins over environment and defaults", () => {
  assert.deepEqual(
    discoverSocket("/a/b.sock", env({ PORTREEVE_SOCKET: "/c.sock", HOME: "/h" }), "linux"),
    {
      path: "/a/b.sock",
      source: "flag",
    },
  );
});

Deno.test("PORTREEVE_SOCKET, then XDG_STATE_HOME, then HOME on Linux", () => {
  assert.deepEqual(
    discoverSocket(undefined, env({ PORTREEVE_SOCKET: "/s/p.sock" }), "linux").source,
    "PORTREEVE_SOCKET",
  );
  assert.equal(
    discoverSocket(undefined, env({ XDG_STATE_HOME: "/x", HOME: "/h" }), "linux").path,
    "/x/portreeve/portreeve.sock",
  );
  assert.equal(
    discoverSocket(undefined, env({ HOME: "/h" }), "linux").path,
    "/h/.local/state/portreeve/portreeve.sock",
  );
});

Deno.test("empty variables count as unset", () => {
  const found = discoverSocket(
    undefined,
    env({ PORTREEVE_SOCKET: "", XDG_STATE_HOME: "", HOME: "/h" }),
    "linux",
  );
  assert.deepEqual(found, { path: "/h/.local/state/portreeve/portreeve.sock", source: "HOME" });
});

Deno.test("macOS default under Application Support", () => {
  assert.deepEqual(discoverSocket(undefined, env({ HOME: "/Users/a b" }), "darwin"), {
    path: "/Users/a b/Library/Application Support/Portreeve/portreeve.sock",
    source: "macOS default",
  });
});

Deno.test("relative, empty and NUL paths are refused with a clear message", () => {
  assert.throws(
    () => discoverSocket("rel/p.sock", env({}), "linux"),
    /--socket must be an absolute path/,
  );
  assert.throws(() => discoverSocket("", env({}), "linux"), /--socket is empty/);
  assert.throws(
    () => discoverSocket(undefined, env({ PORTREEVE_SOCKET: "x.sock" }), "linux"),
    SocketPathError,
  );
  assert.throws(() => discoverSocket("/a\0b", env({}), "linux"), /NUL/);
  assert.throws(() => discoverSocket(undefined, env({}), "linux"), /HOME is not set/);
});

Deno.test("a refusal's example is this user's own default socket, never a made-up path", () => {
  const refusal = (flag: string, vars: Record<string, string>, os = "linux") => {
    try {
      // Everything named is a folder of this user's, as `/tmp` would be.
      const folder = { kind: "folder" as const, uid: 1000, gid: 1000, mode: 0o700 };
      locateSocket(flag, env(vars), os, {
        lstat: () => folder,
        readLink: () => undefined,
        uid: () => 1000,
        accounts: () => null,
      });
    } catch (error) {
      if (error instanceof SocketPathError) return error.message;
      throw error;
    }
    throw new Error("not refused");
  };
  const home = { HOME: "/home/ada" };
  assert.match(
    refusal("p.sock", home),
    /for example \/home\/ada\/\.local\/state\/portreeve\/portreeve\.sock\.$/,
  );
  assert.match(
    refusal("p.sock", { ...home, XDG_STATE_HOME: "/st" }),
    /example \/st\/portreeve\/portreeve\.sock/,
  );
  assert.match(
    refusal("p.sock", home, "darwin"),
    /example \/home\/ada\/Library\/Application Support\/Portreeve\/portreeve\.sock/,
  );
  assert.match(
    refusal("/tmp", home),
    /e\.g\. \/home\/ada\/\.local\/state\/portreeve\/portreeve\.sock\.$/,
  );
  assert.match(
    refusal("p.sock", { ...home, PORTREEVE_HOME: "/ph/" }),
    /example \/ph\/portreeve\.sock\.$/,
  );
  // A relative PORTREEVE_HOME is refused itself, so the example is the platform default.
  assert.match(
    refusal("p.sock", { ...home, PORTREEVE_HOME: "ph" }),
    /example \/home\/ada\/\.local\/state\/portreeve\/portreeve\.sock\.$/,
  );
  for (const message of [refusal("p.sock", home), refusal("/tmp/", home), refusal("/tmp", home)]) {
    assert.doesNotMatch(message, /\/run\/user\//, message);
  }
});

Deno.test("paths are normalised without touching the filesystem", () => {
  assert.equal(discoverSocket("/a//b/./c/../d.sock", env({}), "linux").path, "/a/b/d.sock");
});

Deno.test("a socket path Deno cannot grant exactly is refused: a comma, / or a directory", () => {
  assert.throws(() => discoverSocket("/a,b.sock", env({}), "linux"), /comma/);
  assert.throws(
    () => discoverSocket(undefined, env({ PORTREEVE_SOCKET: "/x/a,b" }), "linux"),
    /PORTREEVE_SOCKET .*comma/,
  );
  for (const path of ["/", "//", "/run/portreeve/", "/a/./"]) {
    assert.throws(() => discoverSocket(path, env({}), "linux"), /whole tree/, path);
  }
  const at = { path: "/srv/d", source: "flag" as const };
  assert.throws(
    () => checkSocketSite(at, disk({ "/srv/d": folder(0o755) })),
    /^SocketPathError: --socket \/srv\/d names a directory/,
  );
});

/**
 * A made-up disk: what `entries` name is there (links not followed; a link leads to what
 * `links` says); the rest is missing. The user and group databases answer nothing, unless
 * `accounts` is given.
 */
function disk(
  entries: Record<string, PathFacts>,
  uid: number | null = 1000,
  links: Record<string, string> = {},
  accounts: Accounts = () => null,
): Disk {
  const at = (path: string) => entries[path] ?? { kind: "missing", uid: -1, gid: -1, mode: 0 };
  return { lstat: at, readLink: (path) => links[path], uid: () => uid, accounts };
}
/** A folder of user `uid` (and of group 1000, unless `gid` is given). */
const folder = (mode: number, uid = 1000, gid = 1000): PathFacts => ({
  kind: "folder",
  uid,
  gid,
  mode,
});
const ROOT_FOLDERS = { "/": folder(0o755, 0), "/home": folder(0o755, 0) };

Deno.test("a socket or nothing yet is granted; anything else at the name is refused", () => {
  const at = { path: "/home/ada/s.sock", source: "PORTREEVE_SOCKET" as const };
  const around = { ...ROOT_FOLDERS, "/home/ada": folder(0o700) };
  const thing = (kind: PathFacts["kind"]): PathFacts => ({
    kind,
    uid: 1000,
    gid: 1000,
    mode: 0o600,
  });
  assert.deepEqual(checkSocketSite(at, disk(around)), at, "nothing yet");
  assert.deepEqual(checkSocketSite(at, disk({ ...around, [at.path]: thing("socket") })), at);
  const refused: [PathFacts["kind"], RegExp][] = [
    ["file", /is a regular file, not a socket/],
    ["fifo", /is a named pipe \(FIFO\), not a socket/],
    ["character device", /is a character device, not a socket/],
    ["block device", /is a block device, not a socket/],
    ["symlink", /is a symbolic link, not a socket/],
    ["other", /is neither a socket nor a file, not a socket/],
  ];
  for (const [kind, message] of refused) {
    assert.throws(
      () => checkSocketSite(at, disk({ ...around, [at.path]: thing(kind) })),
      new RegExp(`^SocketPathError: PORTREEVE_SOCKET /home/ada/s\\.sock ${message.source}`),
      kind,
    );
  }
});

Deno.test("the socket's folder: only you or root may change it; nothing yet above it either", () => {
  const at = { path: "/home/ada/run/s.sock", source: "flag" as const };
  const site = (entries: Record<string, PathFacts>, uid?: number | null) => () =>
    checkSocketSite(at, disk({ ...ROOT_FOLDERS, ...entries }, uid));
  const ada = folder(0o755);
  assert.doesNotThrow(site({ "/home/ada": ada, "/home/ada/run": folder(0o700) }));
  assert.doesNotThrow(site({ "/home/ada": ada, "/home/ada/run": folder(0o755, 0) }), "root's");
  assert.throws(
    site({ "/home/ada": ada, "/home/ada/run": folder(0o770) }),
    /lies in \/home\/ada\/run, which group 1000 can write to, a group not yours alone \(the group database has no entry for it\): they could put/,
  );
  assert.throws(
    site({ "/home/ada": ada, "/home/ada/run": folder(0o1777, 0) }),
    /lies in \/home\/ada\/run, which other users can write to/,
  );
  assert.throws(
    site({ "/home/ada": ada, "/home/ada/run": folder(0o700, 1001) }),
    /lies in \/home\/ada\/run, which belongs to user 1001/,
  );
  // Without leave to ask who it is, a process still sees the modes.
  assert.doesNotThrow(site({ "/home/ada": ada, "/home/ada/run": folder(0o700, 1001) }, null));
  assert.throws(
    site({
      "/home/ada": ada,
      "/home/ada/run": { kind: "symlink", uid: 1000, gid: 1000, mode: 0o777 },
    }),
    /lies in \/home\/ada\/run, a symbolic link/,
  );
  assert.throws(
    site({
      "/home/ada": ada,
      "/home/ada/run": { kind: "file", uid: 1000, gid: 1000, mode: 0o600 },
    }),
    /lies under \/home\/ada\/run, which is not a folder/,
  );
  // The folder is not there yet: the nearest one above decides, and no one else may write it.
  assert.throws(
    site({ "/home/ada": folder(0o775) }),
    /lies under \/home\/ada, which group 1000 can write to, a group not yours alone \(the group database has no entry for it\): they could make the socket's folder first .* \(for a folder of yours: chmod go-w \/home\/ada\)\.$/,
  );
  assert.throws(
    site({ "/home/ada": folder(0o777) }),
    /lies under \/home\/ada, which other users can write to: they could make the socket's/,
  );
  assert.throws(site({ "/home/ada": folder(0o755, 1001) }), /under \/home\/ada, which belongs/);
  assert.doesNotThrow(site({}), "nothing above but /home, root's");
});

Deno.test("every folder on the way: yours or root's, written by no one else unless sticky", () => {
  const at = { path: "/home/ada/run/s.sock", source: "flag" as const };
  const mine = { "/home/ada": folder(0o700), "/home/ada/run": folder(0o700) };
  const site = (entries: Record<string, PathFacts>, links: Record<string, string> = {}) => () =>
    checkSocketSite(at, disk({ ...ROOT_FOLDERS, ...mine, ...entries }, 1000, links));
  assert.throws(
    site({ "/home": folder(0o777, 0) }),
    /^SocketPathError: --socket \/home\/ada\/run\/s\.sock lies under \/home, which other users can write to: they could move the folders below it aside and put their own socket at this path\. Fix: chmod go-w \/home, or chmod \+t \/home \(as \/tmp has\) if others must write there\.$/,
  );
  assert.doesNotThrow(site({ "/home": folder(0o1777, 0) }), "sticky, as /tmp");
  assert.throws(
    site({ "/": folder(0o775, 0, 0) }),
    /lies under \/, which group 0 can write to, a group not yours alone/,
  );
  assert.throws(
    site({ "/home": folder(0o755, 1001) }),
    /lies under \/home, which belongs to user 1001: .* \(or have root chown \/home\)\.$/,
  );
  // A link on the way is followed: its owner, and every folder it leads through, count.
  const link = (uid: number): PathFacts => ({ kind: "symlink", uid, gid: uid, mode: 0o777 });
  const viaLink = {
    "/home/ada": link(1000),
    "/srv": folder(0o755, 0),
    "/srv/ada": folder(0o700),
  };
  const target = { "/home/ada": "/srv/ada" };
  assert.doesNotThrow(site({ ...viaLink, "/srv/ada/run": folder(0o700) }, target));
  assert.throws(
    site({ ...viaLink, "/srv": folder(0o777, 0), "/srv/ada/run": folder(0o700) }, target),
    /lies under \/srv, which other users can write to/,
  );
  assert.throws(
    site({ ...viaLink, "/home/ada": link(1001) }, target),
    /lies under \/home\/ada, a symbolic link of user 1001: they could make it lead elsewhere/,
  );
  assert.throws(
    site({ "/home/ada": link(1000) }, { "/home/ada": "/home/ada" }),
    /lies under \/home\/ada, past more than 40 symbolic links \(a loop\?\)/,
  );
  // A relative link, with .., leads on from the folder that holds it.
  const relative = { "/home/ada": "../srv/./ada/" };
  assert.doesNotThrow(site({ ...viaLink, "/srv/ada/run": folder(0o700) }, relative));
  assert.throws(
    site({ ...viaLink, "/srv": folder(0o757, 0), "/srv/ada/run": folder(0o700) }, relative),
    /lies under \/srv, which other users can write to/,
  );
});

Deno.test("a folder its group may write: granted for the user's private group alone, each group asked once", () => {
  const at = { path: "/home/ada/run/s.sock", source: "flag" as const };
  const asked: string[] = [];
  const databases = (primary: number): Accounts => (db, key) => {
    asked.push(`${db} ${key ?? "all"}`);
    const lines = db === "passwd"
      ? ["root:x:0:0::/root:/bin/sh", `ada:x:1000:${primary}::/home/ada:/bin/sh`]
      : ["root:x:0:", "ada:x:1000:", "staff:x:20:root,ada"];
    const found = lines.filter((line) => key === undefined || line.split(":")[2] === `${key}`);
    return found.length === 0 ? null : found.join("\n");
  };
  const site = (
    entries: Record<string, PathFacts>,
    uid: number | null = 1000,
    primary = 1000,
  ) =>
  () =>
    checkSocketSite(
      at,
      disk({ ...ROOT_FOLDERS, ...entries }, uid, {}, databases(primary)),
    );
  // Debian and Ubuntu: ~ and its folders made under umask 002, group ada, which is ada's alone.
  const umask002 = { "/home/ada": folder(0o775), "/home/ada/run": folder(0o770) };
  assert.doesNotThrow(site(umask002));
  assert.deepEqual(asked, ["group all", "passwd all"], "each database listed once");
  assert.throws(
    site(umask002, 1000, 20),
    /^SocketPathError: --socket \S+ lies under \/home\/ada, which group 1000 \(ada\) can write to, a group not yours alone \(it is not your primary group\): they could move/,
  );
  assert.throws(
    site({ "/home/ada": folder(0o700), "/home/ada/run": folder(0o770, 1000, 20) }),
    /lies in \/home\/ada\/run, which group 20 \(staff\) can write to, a group not yours alone \(it is not named ada\)/,
  );
  // Each group for itself: ada's on the way vouches for no other below it.
  assert.throws(
    site({ "/home/ada": folder(0o775), "/home/ada/run": folder(0o770, 1000, 20) }),
    /lies in \/home\/ada\/run, which group 20 \(staff\) can write to/,
  );
  // Others' write is refused whatever the group.
  assert.throws(
    site({ "/home/ada": folder(0o777), "/home/ada/run": folder(0o700) }),
    /lies under \/home\/ada, which other users can write to/,
  );
  // Without leave to ask who it is, a process cannot tell whose group it is.
  assert.throws(
    site(umask002, null),
    /lies under \/home\/ada, which group 1000 can write to, a group not yours alone \(your user id is not known here\)/,
  );
});

Deno.test("what a confined process may not look at is left to whoever granted it", () => {
  const at = { path: "/srv/p.sock", source: "flag" as const };
  const blind: Disk = {
    lstat: () => null,
    readLink: () => null,
    uid: () => null,
    accounts: () => null,
  };
  assert.deepEqual(checkSocketSite(at, blind), at);
  // The name is visible (it is the grant), its folder is not.
  const nameOnly: Disk = { ...blind, lstat: (p) => p === at.path ? folder(0o700) : null };
  assert.throws(() => checkSocketSite(at, nameOnly), /names a directory/);
});

Deno.test("PORTREEVE_HOME: portreeve.sock in PortReeve's own folder, after PORTREEVE_SOCKET", () => {
  const home = { HOME: "/h", XDG_STATE_HOME: "/x" };
  for (const os of ["linux", "darwin"]) {
    assert.deepEqual(
      discoverSocket(undefined, env({ ...home, PORTREEVE_HOME: "/srv//pr/" }), os),
      { path: "/srv/pr/portreeve.sock", source: "PORTREEVE_HOME" },
      os,
    );
  }
  assert.equal(
    discoverSocket(undefined, env({ PORTREEVE_SOCKET: "/s.sock", PORTREEVE_HOME: "/p" }), "linux")
      .source,
    "PORTREEVE_SOCKET",
  );
  assert.equal(discoverSocket("/f.sock", env({ PORTREEVE_HOME: "/p" }), "linux").source, "flag");
  assert.equal(
    discoverSocket(undefined, env({ ...home, PORTREEVE_HOME: "" }), "linux").source,
    "XDG_STATE_HOME",
    "empty counts as unset",
  );
  assert.equal(
    discoverSocket(undefined, env({ PORTREEVE_HOME: "/" }), "linux").path,
    "/portreeve.sock",
  );
  assert.throws(
    () => discoverSocket(undefined, env({ PORTREEVE_HOME: "pr" }), "linux"),
    /^SocketPathError: PORTREEVE_HOME must be an absolute path/,
  );
  assert.throws(
    () => discoverSocket(undefined, env({ PORTREEVE_HOME: "/a,b" }), "linux"),
    /PORTREEVE_HOME \/a,b contains a comma/,
  );
});

Deno.test("HOME and XDG_STATE_HOME are folders: a trailing slash or / itself is fine", () => {
  assert.equal(
    discoverSocket(undefined, env({ HOME: "/" }), "linux").path,
    "/.local/state/portreeve/portreeve.sock",
  );
  assert.equal(
    discoverSocket(undefined, env({ XDG_STATE_HOME: "/var/state/" }), "linux").path,
    "/var/state/portreeve/portreeve.sock",
  );
  assert.equal(
    discoverSocket(undefined, env({ HOME: "/Users/ada/" }), "darwin").path,
    "/Users/ada/Library/Application Support/Portreeve/portreeve.sock",
  );
});

Deno.test("a socket path as long as sun_path (108 bytes on Linux, 104 on macOS) is refused", () => {
  const notDirectory: Disk = {
    lstat: () => null,
    readLink: () => null,
    uid: () => null,
    accounts: () => null,
  };
  const path = (bytes: number) => `/${"s".repeat(bytes - 1)}`;
  assert.equal(locateSocket(path(107), env({}), "linux", notDirectory).path.length, 107);
  assert.throws(
    () => locateSocket(path(108), env({}), "linux", notDirectory),
    /--socket \/s+ is 108 bytes, too long for a Unix socket: it must be shorter than 108 bytes/,
  );
  assert.equal(locateSocket(path(103), env({}), "darwin", notDirectory).path.length, 103);
  assert.throws(() => locateSocket(path(104), env({}), "darwin", notDirectory), SocketPathError);
  // Bytes, not characters: 107 characters of which one takes two bytes.
  assert.throws(
    () => locateSocket(`${path(106)}é`, env({}), "linux", notDirectory),
    /is 108 bytes, too long/,
  );
});

Deno.test("the socket path that would be used must fit, whatever its source", () => {
  const deep = `/h/${"d".repeat(90)}`;
  assert.throws(
    () => discoverSocket(undefined, env({ HOME: deep }), "linux"),
    /^SocketPathError: HOME \/h\/d+\/\.local\/state\/portreeve\/portreeve\.sock is 131 bytes, too long/,
  );
  // Normalised first: a path that only looks long is fine.
  assert.equal(discoverSocket(`/a${"/.".repeat(60)}/b.sock`, env({}), "linux").path, "/a/b.sock");
});

Deno.test("a huge socket path is refused in one short line", () => {
  const huge = `/${"x".repeat(100_000)}`;
  try {
    discoverSocket(huge, env({}), "linux");
    assert.fail("accepted");
  } catch (error) {
    assert.ok(error instanceof SocketPathError);
    assert.ok(error.message.length < 600, `${error.message.length} characters`);
    assert.ok(!error.message.includes("\n"));
    assert.match(error.message, /^--socket is 100001 bytes, too long/);
  }
});
