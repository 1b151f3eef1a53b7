/**
 * The launcher (`src/cli/install/launcher.ts`) grants at each start exactly what `serve` would
 * use: run for real by /bin/sh (and dash and bash) in a throwaway install layout whose "deno" is
 * a stand-in that prints the arguments it was given, it must pass `run`,
 * `confinedFlags(socket, "bundle")`, the bundle and the caller's arguments for the socket
 * `locateSocket` finds from the same arguments and environment; and for every path
 * `locateSocket` refuses it must print the same one-line message and exit 2 without starting
 * anything. It must find its bundle wherever the folder is moved or linked from. What is on
 * disk at the socket's path is walked kind by kind in launcher_site_test.ts.
 */
import assert from "node:assert/strict";
import { installLayout } from "../../../../src/shared/install_layout.ts";
import { confinedFlags } from "../../../../src/shared/permissions.ts";
import { planFlags } from "../../../../src/cli/host/grant.ts";
import { symlink } from "../../../support/symlink.ts";
import {
  type Case,
  compare,
  launch,
  launchEverywhere,
  layoutFor,
  SHELLS,
  STUB_DENO,
} from "../../../support/launcher_rig.ts";

const decoder = new TextDecoder();

/** A locale in which a shell counts characters, not bytes (where the machine has it). */
const UTF8 = { LANG: "C.UTF-8", LC_ALL: "C.UTF-8" };

/** A path of exactly `bytes` bytes under `dir`. */
function ofLength(dir: string, bytes: number): string {
  return `${dir}/${"s".repeat(bytes - dir.length - 1)}`;
}

Deno.test("launcher: grants what serve would use, for every source of the socket (Linux)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-launcher-" });
  try {
    await Deno.mkdir(`${dir}/a-directory`);
    const home = { HOME: "/home/ada" };
    const accepted: Case[] = [
      { args: ["serve", "--socket", `${dir}/a.sock`], env: home },
      { args: ["config", "--host", "claude", `--socket=${dir}/b c.sock`], env: home },
      { args: ["doctor", "--socket", `${dir}//x/../y/./s.sock`, "--json"], env: home },
      { args: ["serve", "--socket", "/a.sock", "--socket", "/b.sock"], env: home },
      { args: ["serve", "--socket", `${dir}/é'$x\`y\`"z\n.sock`], env: home },
      { args: ["--version"], env: { ...home, PORTREEVE_SOCKET: "/run/p.sock" } },
      { args: ["serve"], env: { ...home, PORTREEVE_SOCKET: "", XDG_STATE_HOME: "/x/state" } },
      { args: ["serve"], env: { HOME: "/home/a 'b' $c", XDG_STATE_HOME: "" } },
      { args: ["serve"], env: { HOME: "/home/ada/" } },
      { args: ["serve"], env: { HOME: "/" } },
      { args: ["serve"], env: { HOME: "//" } },
      { args: ["serve"], env: { XDG_STATE_HOME: "/s//t/./u" } },
      { args: ["serve", "--socket", ofLength(dir, 107)], env: home },
      // PORTREEVE_HOME: the daemon's folder, after PORTREEVE_SOCKET and before the default.
      { args: ["serve"], env: { ...home, PORTREEVE_HOME: `${dir}/pr-home` } },
      {
        args: ["serve"],
        env: { ...home, XDG_STATE_HOME: "/x/state", PORTREEVE_HOME: `${dir}//pr-home/` },
      },
      { args: ["serve"], env: { PORTREEVE_SOCKET: "/run/p.sock", PORTREEVE_HOME: dir } },
      { args: ["serve", "--socket", `${dir}/f.sock`], env: { PORTREEVE_HOME: "relative" } },
      { args: ["serve"], env: { ...home, PORTREEVE_HOME: "" } },
      { args: ["serve"], env: { PORTREEVE_HOME: "/" } },
      // Bytes, not characters, in a UTF-8 locale too: 107 bytes, 106 characters.
      { args: ["serve", "--socket", `${ofLength(dir, 105)}é`], env: { ...home, ...UTF8 } },
    ];
    const refused: Case[] = [
      { args: ["serve", "--socket", "rel.sock"], env: home },
      { args: ["serve", "--socket="], env: home },
      { args: ["serve", "--socket", "/"], env: home },
      { args: ["serve", "--socket", "/tmp/x/.."], env: home },
      { args: ["serve", "--socket", "/tmp/sock/"], env: home },
      { args: ["serve", "--socket", `${dir}/a-directory`], env: home },
      { args: ["config", "--socket", "/tmp/a,b.sock"], env: home },
      { args: ["serve"], env: { PORTREEVE_SOCKET: "p.sock" } },
      { args: ["serve"], env: { XDG_STATE_HOME: "state" } },
      { args: ["serve"], env: { XDG_STATE_HOME: "/a,b" } },
      { args: ["serve"], env: {} },
      { args: ["serve"], env: { HOME: "" } },
      { args: ["serve", "--socket", ofLength(dir, 108)], env: home },
      { args: ["serve", "--socket", ofLength(dir, 200)], env: home },
      { args: ["serve", "--socket", `${ofLength(dir, 106)}é`], env: home },
      { args: ["serve"], env: { PORTREEVE_SOCKET: `${dir}/a-directory` } },
      { args: ["serve"], env: { XDG_STATE_HOME: `${dir}/${"x".repeat(80)}` } },
      { args: ["serve"], env: { ...home, PORTREEVE_HOME: "pr-home" } },
      { args: ["serve"], env: { ...home, PORTREEVE_HOME: "/a,b" } },
      { args: ["serve"], env: { PORTREEVE_HOME: `${dir}/${"x".repeat(100)}` } },
      // 108 bytes, 107 characters.
      { args: ["serve", "--socket", `${ofLength(dir, 106)}é`], env: { ...home, ...UTF8 } },
    ];
    const layout = await compare(`${dir}/root`, "linux", accepted, refused);
    // The npm package's one launcher grants the same on Linux (the same text does the rest).
    if (Deno.build.os === "linux") {
      await compare(`${dir}/npm-root`, "linux", accepted.slice(0, 8), refused.slice(7, 12), "npm");
    }
    // serve's strict parser refuses `--socket --json` as ambiguous; so does the launcher.
    assert.equal((await launch(layout.launcher, ["serve", "--socket", "--json"], home)).code, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("launcher: the macOS default and limit, baked in for a macOS runtime", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-launcher-" });
  try {
    const users = { HOME: "/Users/ada" };
    const accepted: Case[] = [
      { args: ["serve"], env: { ...users, XDG_STATE_HOME: "/ignored" } },
      { args: ["serve"], env: { ...users, PORTREEVE_HOME: `${dir}/pr-home` } },
      { args: ["serve", "--socket", ofLength(dir, 103)], env: users },
    ];
    const refused: Case[] = [
      { args: ["serve", "--socket", ofLength(dir, 104)], env: users },
      { args: ["serve"], env: {} },
      { args: ["serve"], env: { HOME: "Users/ada" } },
    ];
    await compare(`${dir}/root`, "darwin", accepted, refused);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("launcher: finds its bundle after the folder moves and through links; says when it is gone", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-launcher-" });
  try {
    await layoutFor(`${dir}/first`, "linux");
    await Deno.rename(`${dir}/first`, `${dir}/moved here`);
    const moved = installLayout(`${dir}/moved here`);
    await Deno.mkdir(`${dir}/elsewhere/bin`, { recursive: true });
    await symlink(moved.launcher, `${dir}/elsewhere/absolute-link`);
    await symlink("../../moved here/bin/portreeve-mcp", `${dir}/elsewhere/bin/relative-link`);
    await symlink(`${dir}/moved here`, `${dir}/linked-root`);
    const env = { PORTREEVE_SOCKET: "/run/p.sock" };
    for (
      const launcher of [
        moved.launcher,
        `${dir}/elsewhere/absolute-link`,
        `${dir}/elsewhere/bin/relative-link`,
        `${dir}/linked-root/bin/portreeve-mcp`,
      ]
    ) {
      const got = await launch(launcher, ["serve"], env);
      assert.equal(got.code, 0, `${launcher}: ${got.stderr}`);
      const argv = got.stdout.split("\0");
      // The bundle's real path: the bridge recognises its install layout from it.
      assert.equal(argv[argv.length - 3], moved.bundle, launcher);
    }
    const relative = await new Deno.Command("/bin/sh", {
      args: ["bin/portreeve-mcp", "--version"],
      cwd: `${dir}/moved here`,
      env,
      stdout: "piped",
    }).output();
    assert.ok(decoder.decode(relative.stdout).includes(moved.bundle), "run as sh bin/…");

    await Deno.remove(moved.deno);
    const gone = await launch(moved.launcher, ["serve"], env);
    assert.equal(gone.code, 1);
    assert.equal(gone.stdout, "");
    assert.match(
      gone.stderr,
      /^portreeve-mcp: .*moved here\/lib\/portreeve-mcp is missing[^\n]*\n$/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("launcher: a folder whose path holds a newline is refused, never another folder's Deno", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-launcher-" });
  try {
    const wrong = `#!/bin/sh\nprintf 'WRONG DENO'\n`;
    const env = { PORTREEVE_SOCKET: "/run/p.sock" };
    // `$(pwd -P)` drops trailing newlines: "x\n" would have run x's Deno and bundle.
    for (const name of ["trailing\n", "trailing\n\n", "in\nside", "\nleading"]) {
      await layoutFor(`${dir}/${name.replaceAll("\n", "")}`, "linux", wrong);
      const layout = await layoutFor(`${dir}/${name}`, "linux");
      const shown = `${dir}/${name.replaceAll("\n", "\\n")}`;
      const got = await launchEverywhere(layout.launcher, ["serve"], env, JSON.stringify(name));
      assert.equal(
        got.stderr,
        `portreeve-mcp: this launcher's folder ${shown} has a newline in its path, which a ` +
          "shell can cut to name another folder's Deno and bundle; move the folder to a path " +
          "without one.\n",
      );
      assert.equal(got.code, 2);
      assert.equal(got.stdout, "", "nothing started");
      // Through a link from a clean path, too.
      await symlink(layout.launcher, `${dir}/link`);
      assert.equal((await launch(`${dir}/link`, ["serve"], env)).stderr, got.stderr);
      await Deno.remove(`${dir}/link`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** npm's name for this machine's Deno package, as the launcher computes it from `uname`. */
function npmTarget(): string {
  const arch = Deno.build.arch === "x86_64" ? "x64" : "arm64";
  return Deno.build.os === "darwin" ? `darwin-${arch}` : `linux-${arch}-glibc`;
}

Deno.test("launcher (npm): finds npm's Deno as Node finds a dependency, or says it is missing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-launcher-npm-" });
  try {
    const modules = `${dir}/prefix/lib/node_modules`;
    const root = `${modules}/@portreeve/mcp`;
    const layout = await layoutFor(root, Deno.build.os, STUB_DENO, "npm");
    await Deno.remove(`${root}/node_modules`, { recursive: true });
    const env = { PORTREEVE_SOCKET: "/run/p.sock" };
    const places = [
      `${root}/node_modules/deno/deno`, // nested, its install script run
      `${modules}/deno/deno`, // hoisted beside the package
      `${modules}/@deno/${npmTarget()}/deno`, // install scripts skipped
    ];
    for (const place of places) {
      await Deno.mkdir(place.slice(0, place.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(place, STUB_DENO, { mode: 0o755 });
      const got = await launch(layout.launcher, ["serve"], env);
      assert.equal(got.code, 0, `${place}: ${got.stderr}`);
      assert.deepEqual(
        got.stdout.split("\0").slice(0, -1),
        ["1", "run", ...confinedFlags("/run/p.sock", "bundle"), layout.bundle, "serve"],
        place,
      );
      await Deno.remove(place);
    }
    // Nearest first: a nested copy wins over a hoisted one, as in Node.
    await Deno.mkdir(`${root}/node_modules/deno`, { recursive: true });
    await Deno.writeTextFile(`${root}/node_modules/deno/deno`, STUB_DENO, { mode: 0o755 });
    await Deno.writeTextFile(`${modules}/deno/deno`, "#!/bin/sh\nexit 9\n", { mode: 0o755 });
    assert.equal((await launch(layout.launcher, ["serve"], env)).code, 0);
    await Deno.remove(`${root}/node_modules`, { recursive: true });
    await Deno.remove(`${modules}/deno/deno`);
    const gone = await launch(layout.launcher, ["serve"], env);
    assert.equal(gone.code, 1);
    assert.equal(gone.stdout, "");
    assert.match(
      gone.stderr,
      /^portreeve-mcp: cannot find the Deno runtime npm installs [^\n]*\n$/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * A stand-in Deno for the staged grant: asked for `grant` without a read grant it answers `plan`
 * and a read grant, with one it answers `run` and the command's flags (a path with a space
 * among them); any other run prints its arguments, as STUB_DENO does. Every call is logged.
 */
const PLANNING_DENO = `#!/bin/sh
printf '%s\\n' "$*" >> "$STUB_LOG"
for arg do
  case $arg in
    grant)
      case "$*" in
        *--allow-read=*) printf 'run\\n--allow-read=/h o/.claude.json\\n--allow-run=claude\\n' ;;
        *) printf 'plan\\n--allow-env=HOME\\n--allow-read=/h o/.claude.json\\n' ;;
      esac
      exit 0 ;;
  esac
done
printf '%s\\0' "\${DENO_NO_UPDATE_CHECK-unset}" "$@"
`;

Deno.test("launcher: doctor --host and setup --host run under the grant the bridge plans", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-launcher-" });
  try {
    const layout = await layoutFor(`${dir}/root`, "linux", PLANNING_DENO);
    const log = `${dir}/calls.log`;
    for (const args of [["doctor", "--host", "claude"], ["setup", "--host=claude", "--dry-run"]]) {
      await Deno.writeTextFile(log, "");
      const env = { HOME: "/home/ada", STUB_LOG: log };
      const got = await launchEverywhere(layout.launcher, args, env, args.join(" "));
      assert.equal(got.code, 0, got.stderr);
      assert.deepEqual(got.stdout.split("\0").slice(0, -1), [
        "1",
        "run",
        "--allow-read=/h o/.claude.json",
        "--allow-run=claude",
        layout.bundle,
        ...args,
      ]);
      const calls = (await Deno.readTextFile(log)).trimEnd().split("\n");
      // Per shell: the plan without a grant, the plan with it, then the command.
      assert.equal(
        calls[0],
        ["run", ...planFlags("bundle"), layout.bundle, "grant", ...args].join(" "),
      );
      assert.equal(calls.length, 3 * (1 + SHELLS.length));
    }
    // generic, no --host, and every other command keep the bridge's confinement, unplanned.
    for (
      const args of [["doctor", "--host", "generic"], ["doctor"], ["serve", "--host", "claude"]]
    ) {
      await Deno.writeTextFile(log, "");
      const got = await launch(layout.launcher, args, { HOME: "/home/ada", STUB_LOG: log });
      assert.ok(got.stdout.includes("--allow-net=unix:"), args.join(" "));
      assert.equal((await Deno.readTextFile(log)).trimEnd().split("\n").length, 1, args.join(" "));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
