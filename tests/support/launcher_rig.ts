/**
 * The real launcher script in a throwaway install layout whose "deno" is a stand-in that prints
 * the arguments it was given, run by /bin/sh and by each other shell this machine has; and the
 * comparison of what it grants or refuses with what `locateSocket` says for the same arguments
 * and environment.
 */
import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { type LauncherRuntime, launcherScript } from "../../src/cli/install/launcher.ts";
import { installLayout } from "../../src/shared/install_layout.ts";
import { confinedFlags } from "../../src/shared/permissions.ts";
import { type EnvReader, locateSocket, SocketPathError } from "../../src/shared/socket_location.ts";
import { type Disk, type PathFacts, REAL_DISK } from "../../src/shared/socket_site.ts";

const decoder = new TextDecoder();

/** A stand-in Deno: prints DENO_NO_UPDATE_CHECK and its arguments, NUL-separated. */
export const STUB_DENO = `#!/bin/sh\nprintf '%s\\0' "\${DENO_NO_UPDATE_CHECK-unset}" "$@"\n`;

/**
 * A throwaway layout: the private runtime's (Deno under lib/), or the npm package's (one
 * launcher for any OS, Deno where npm put the `deno` package: node_modules/deno/deno).
 */
export async function layoutFor(
  dir: string,
  os: string,
  deno = STUB_DENO,
  runtime: LauncherRuntime = "private",
) {
  const layout = installLayout(dir);
  await Deno.mkdir(`${dir}/bin`, { recursive: true });
  await Deno.mkdir(layout.lib, { recursive: true });
  const script = runtime === "npm" ? launcherScript("any", "npm") : launcherScript(os);
  await Deno.writeTextFile(layout.launcher, script, { mode: 0o755 });
  const denoPath = runtime === "npm" ? `${dir}/node_modules/deno/deno` : layout.deno;
  await Deno.mkdir(denoPath.slice(0, denoPath.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(denoPath, deno, { mode: 0o755 });
  return layout;
}

/** The file a path leads to, links followed; null where there is none. */
function realFile(path: string): string | null {
  try {
    return Deno.statSync(path).isFile ? Deno.realPathSync(path) : null;
  } catch {
    return null;
  }
}

/**
 * Shells a launcher may meet beside /bin/sh (which its first line names): dash (Debian's sh)
 * and bash in POSIX mode (macOS's sh), each where this machine has it, and each once: a shell
 * that is the same file as /bin/sh or as one listed before it (/bin/bash and /usr/bin/bash on
 * a merged /usr) would only run the same program twice.
 */
export const SHELLS = [["/usr/bin/dash"], ["/bin/bash", "--posix"], ["/usr/bin/bash", "--posix"]]
  .map((shell) => ({ shell, file: realFile(shell[0]) }))
  .filter(({ file }, i, all) =>
    file !== null && file !== realFile("/bin/sh") &&
    all.findIndex((other) => other.file === file) === i
  )
  .map(({ shell }) => shell);

export interface Launched {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the launcher (by `shell`, else its own first line); as the user id `user` when given,
 * which only root can do (setpriv, no supplementary groups).
 */
export async function launch(
  launcher: string,
  args: string[],
  env: Record<string, string>,
  shell: string[] = [],
  user?: number,
): Promise<Launched> {
  const as = user === undefined
    ? []
    : ["setpriv", `--reuid=${user}`, `--regid=${user}`, "--clear-groups"];
  const [command, ...before] = [...as, ...shell, launcher];
  const out = await new Deno.Command(command, {
    args: [...before, ...args],
    env: { PATH: "/usr/bin:/bin", ...env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** The same run under /bin/sh (the script's own line) and every other shell: all must agree. */
export async function launchEverywhere(
  launcher: string,
  args: string[],
  env: Record<string, string>,
  where: string,
  user?: number,
): Promise<Launched> {
  const [got, ...others] = await Promise.all(
    [[], ...SHELLS].map((shell) => launch(launcher, args, env, shell, user)),
  );
  others.forEach((other, i) => {
    assert.deepEqual(other, got, `${where}: the same under ${SHELLS[i].join(" ")}`);
  });
  return got;
}

/** What `serve` reads from these arguments: the same parser, the same last-one-wins rule. */
export function socketFlag(args: string[]): string | undefined {
  const { values } = parseArgs({
    args,
    options: { socket: { type: "string" } },
    strict: false,
    allowPositionals: true,
  });
  return typeof values.socket === "string" ? values.socket : undefined;
}

/** This user's id, as the launcher's `id -u` sees it (tests run without --allow-sys). */
export async function userId(): Promise<number> {
  const out = await new Deno.Command("id", { args: ["-u"], stdout: "piped" }).output();
  return Number(decoder.decode(out.stdout).trim());
}

/** `stat`'s word for each kind of file (GNU coreutils' %F). */
const STAT_KINDS: Record<string, PathFacts["kind"]> = {
  "directory": "folder",
  "regular file": "file",
  "regular empty file": "file",
  "symbolic link": "symlink",
  "socket": "socket",
  "fifo": "fifo",
  "character special file": "character device",
  "block special file": "block device",
};

/** What `stat` says of `path` itself: for paths this test may not look at (reads scoped). */
function statFacts(path: string): PathFacts {
  const out = new Deno.Command("stat", {
    args: ["-c", "%u:%g:%a:%F", "--", path],
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  if (!out.success) return { kind: "missing", uid: -1, gid: -1, mode: 0 };
  const [uid, gid, mode, kind] = decoder.decode(out.stdout).trimEnd().split(":");
  return { kind: STAT_KINDS[kind] ?? "other", uid: +uid, gid: +gid, mode: parseInt(mode, 8) };
}

/** What `readlink` says the link at `path` holds; undefined when there is none. */
function readlinkOf(path: string): string | undefined {
  const out = new Deno.Command("readlink", { args: ["--", path], stdout: "piped" }).outputSync();
  return out.success ? decoder.decode(out.stdout).replace(/\n$/, "") : undefined;
}

/**
 * The real disk, with the user id the launcher compares owners with. Where this test may not
 * look itself (.ci/run scopes reads to the clone and the temp folder), it asks `stat` and
 * `readlink`, as the launcher asks `ls` and `readlink`.
 */
export async function testDisk(): Promise<Disk> {
  const uid = await userId();
  return {
    ...REAL_DISK,
    lstat: (path) => REAL_DISK.lstat(path) ?? statFacts(path),
    readLink: (path) => {
      const target = REAL_DISK.readLink(path);
      return target === null ? readlinkOf(path) : target;
    },
    uid: () => uid,
  };
}

export interface Case {
  args: string[];
  env: Record<string, string>;
}

/**
 * Runs each case through the launcher under every shell; `locateSocket` (on the real disk) must
 * accept the first list and refuse the second, and the launcher must grant exactly
 * `confinedFlags` for what it accepts and print its one line, exit 2 and start nothing for what
 * it refuses.
 */
export async function compare(
  dir: string,
  os: string,
  accepted: Case[],
  refused: Case[],
  runtime: LauncherRuntime = "private",
) {
  const layout = await layoutFor(dir, os, STUB_DENO, runtime);
  const disk = await testDisk();
  for (const [i, { args, env }] of [...accepted, ...refused].entries()) {
    const where = `${os} ${JSON.stringify(args)} ${JSON.stringify(env)}`;
    const reader: EnvReader = (name) => env[name];
    let expected: { path: string } | { message: string };
    try {
      expected = { path: locateSocket(socketFlag(args), reader, os, disk).path };
    } catch (error) {
      if (!(error instanceof SocketPathError)) throw error;
      expected = { message: error.message };
    }
    assert.equal(
      "message" in expected,
      i >= accepted.length,
      `${where}: serve's own verdict ${JSON.stringify(expected)}`,
    );
    const got = await launchEverywhere(layout.launcher, args, env, where);
    if ("path" in expected) {
      assert.equal(got.code, 0, `${where}: ${got.stderr}`);
      assert.deepEqual(
        got.stdout.split("\0").slice(0, -1),
        ["1", "run", ...confinedFlags(expected.path, "bundle"), layout.bundle, ...args],
        where,
      );
    } else {
      assert.equal(got.stderr, `portreeve-mcp: ${expected.message}\n`, where);
      assert.equal(got.code, 2, where);
      assert.equal(got.stdout, "", `${where}: nothing started`);
    }
  }
  return layout;
}
