import assert from "node:assert/strict";
import {
  discoverSocket,
  locateSocket,
  rejectDirectory,
  SocketPathError,
} from "../../../src/shared/socket_location.ts";

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
      locateSocket(flag, env(vars), os, () => ({ isDirectory: true }));
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
  const dir = { isDirectory: true };
  const file = { isDirectory: false };
  const at = { path: "/srv", source: "flag" as const };
  assert.throws(() => rejectDirectory(at, () => dir), /--socket \/srv names a directory/);
  assert.deepEqual(rejectDirectory(at, () => file), at);
  const missing = () => {
    throw new Deno.errors.NotFound("gone");
  };
  assert.deepEqual(rejectDirectory(at, missing), at, "a socket that is not there yet is fine");
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
  const notDirectory = () => ({ isDirectory: false });
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
