/**
 * `deno task install` and `deno task uninstall` as a user runs them, into temporary install
 * roots (each install bundles the bridge and copies Deno, so this lives in the reliability
 * suite; the same guards run in-process in tests/unit/cli/install/installer_test.ts):
 * - the manifest lists exactly the files on disk with their hashes (walked, so a file the
 *   installer writes without recording it fails here), and an upgrade needs no --force;
 * - the launcher serves sockets chosen at launch (none was named at install) from an empty
 *   DENO_DIR with no network: `config`'s exact and portable commands complete a handshake and
 *   a tool call against the simulator, and another socket is only "not answering";
 * - nothing it did not write is replaced, moved or deleted: a foreign launcher in a bin/ that
 *   was there before, a git checkout in lib/portreeve-mcp/, a link in place of the launcher, a
 *   linked bin/ or lib/ — not even with --force, which moves aside only an edited file in a
 *   folder install created, and says so;
 * - uninstall says what it left and why, names what --force moved aside, tells how to take
 *   the entry out of each host, and for a file it kept gives a next step that works as printed.
 */
import { finished } from "../support/processes.ts";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { HostClient } from "../support/host_client.ts";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { withSimulator } from "../e2e/harness.ts";
import { installLayout } from "../../src/shared/install_layout.ts";
import { MANIFEST_PATH, parseManifest, sha256 } from "../../src/cli/install/manifest.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const decoder = new TextDecoder();

function run(command: string, args: string[], env: Record<string, string>, cwd = ROOT) {
  return finished(command, args, { cwd, env, clearEnv: true });
}

/** The caller's environment without any socket setting: the install must not need one. */
function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = Deno.env.toObject();
  delete env.PORTREEVE_SOCKET;
  delete env.XDG_STATE_HOME;
  return { ...env, ...extra };
}

function task(name: "install" | "uninstall", root: string, args: string[] = []) {
  return run(Deno.execPath(), ["task", "-q", name, ...args], {
    ...userEnv(),
    PORTREEVE_MCP_INSTALL_ROOT: root,
  });
}

/** `unshare -n` (an empty network namespace) when this machine allows it. */
async function offline(): Promise<string[]> {
  try {
    const probe = await new Deno.Command("unshare", { args: ["-n", "true"] }).output();
    if (probe.success) return ["unshare", "-n"];
    console.log("unshare -n is refused here: the no-network part runs with dead proxies only");
  } catch {
    console.log("no unshare here: the no-network part runs with dead proxies only");
  }
  return [];
}

const DEAD_PROXY = "http://127.0.0.1:9";
/** Advice to install again, in any of the words it used to take. */
const REINSTALL = /reinstall|task install|install again|install --socket/i;

export async function handshake(argv: string[], env: Record<string, string>) {
  const transport = new StdioClientTransport({
    command: argv[0],
    args: argv.slice(1),
    env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += decoder.decode(chunk));
  const client = new HostClient({ name: "install-e2e", version: "0" });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === "portreeve_health"), stderr);
    const health = await client.callTool({ name: "portreeve_health", arguments: {} });
    assert.notEqual(health.isError, true, JSON.stringify(health));
    const data = (health.structuredContent as { data?: { softwareVersion?: string } }).data;
    assert.equal(data?.softwareVersion, "0.1.0");
  } finally {
    await client.close();
  }
}

/** Everything under `root` without following links: files (with hashes), folders, links. */
async function walk(root: string) {
  const files = new Map<string, string>();
  const folders: string[] = [];
  const links: string[] = [];
  const visit = async (rel: string) => {
    for await (const entry of Deno.readDir(rel === "" ? root : `${root}/${rel}`)) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isSymlink) links.push(path);
      else if (entry.isDirectory) {
        folders.push(path);
        await visit(path);
      } else files.set(path, await sha256(await Deno.readFile(`${root}/${path}`)));
    }
  };
  await visit("");
  return { files, folders: folders.sort(), links };
}

/**
 * The manifest names every file on disk with its hash, and every folder install created: the
 * root itself too (".") when install made it, so uninstall can take it away once empty.
 */
async function assertManifestMatchesDisk(root: string): Promise<void> {
  const manifest = parseManifest(await Deno.readTextFile(`${root}/${MANIFEST_PATH}`));
  const disk = await walk(root);
  assert.deepEqual(manifest.pending, [], "no install left pending");
  assert.deepEqual(manifest.partials, []);
  assert.deepEqual(disk.links, []);
  disk.files.delete(MANIFEST_PATH);
  assert.deepEqual(
    new Map(manifest.files.map(({ path, sha256 }) => [path, sha256])),
    disk.files,
    "the manifest lists exactly the files on disk, with their content hashes",
  );
  assert.deepEqual(
    [...manifest.folders].sort(),
    [".", ...disk.folders].sort(),
    "and the folders it created, the root among them",
  );
}

Deno.test("install: manifest = disk; any socket at launch, offline, empty DENO_DIR; upgrade; uninstall", async () => {
  const sim = await withSimulator();
  const dir = await Deno.makeTempDir({ prefix: "prmcp-install-" });
  try {
    const root = `${dir}/root`;
    const layout = installLayout(root);
    const installed = await task("install", root);
    assert.equal(installed.code, 0, installed.stderr);
    for (const path of [layout.launcher, layout.bundle, layout.manifest]) {
      assert.ok(installed.stdout.includes(path), installed.stdout);
    }
    assert.ok(installed.stdout.includes(`${root}/bin is not on your PATH`), installed.stdout);
    await assertManifestMatchesDisk(root);

    // A wiped cache, a home with nothing in it and no way to the network. The socket is
    // chosen now, at launch; the install never heard of it.
    await Deno.mkdir(`${dir}/deno-dir`);
    await Deno.mkdir(`${dir}/home`);
    const bare: Record<string, string> = {
      PATH: `${root}/bin:/usr/bin:/bin`,
      HOME: `${dir}/home`,
      DENO_DIR: `${dir}/deno-dir`,
      HTTPS_PROXY: DEAD_PROXY,
      HTTP_PROXY: DEAD_PROXY,
      ALL_PROXY: DEAD_PROXY,
      NPM_CONFIG_REGISTRY: DEAD_PROXY,
    };
    const jail = await offline();
    for (const portable of [false, true]) {
      const printed = await run(
        layout.launcher,
        [
          "config",
          "--host",
          "generic",
          "--socket",
          sim.socketPath,
          "--json",
          ...(portable ? ["--portable"] : []),
        ],
        bare,
        dir,
      );
      assert.equal(printed.code, 0, printed.stderr);
      assert.equal(printed.stderr, "", "no warning for an installed copy");
      const { config } = JSON.parse(printed.stdout) as {
        config: { command: string; args: string[]; env: Record<string, string>; notes: string[] };
      };
      assert.equal(config.command, portable ? "portreeve-mcp" : layout.launcher);
      assert.deepEqual(config.args, ["serve", "--socket", sim.socketPath]);
      assert.deepEqual(config.env, { DENO_NO_UPDATE_CHECK: "1" });
      assert.ok(config.notes.every((note) => !REINSTALL.test(note)), "no reinstall advice");
      await handshake([...jail, config.command, ...config.args], { ...bare, ...config.env });
    }
    // The same launcher through PORTREEVE_SOCKET alone.
    await handshake([...jail, layout.launcher, "serve"], {
      ...bare,
      PORTREEVE_SOCKET: sim.socketPath,
    });
    // Deno keeps its analysis caches there, but no package or remote module was fetched.
    for (const cache of ["npm", "remote"]) {
      const entries = await Array.fromAsync(Deno.readDir(`${dir}/deno-dir/${cache}`)).catch(
        (error) => error instanceof Deno.errors.NotFound ? [] : Promise.reject(error),
      );
      assert.deepEqual(entries, [], `${cache} cache stays empty`);
    }
    // Another socket is a daemon that does not answer, not a grant to fix by reinstalling.
    const other = await run(
      layout.launcher,
      ["doctor", "--socket", `${dir}/other.sock`],
      bare,
      dir,
    );
    assert.equal(other.code, 3, other.stdout);
    assert.match(other.stdout, /\[ok\]\s+permission grant: covers this socket/);
    assert.doesNotMatch(other.stdout + other.stderr, REINSTALL);

    // Upgrade: a second install over the first needs no --force and leaves no stale file.
    const again = await task("install", root);
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stdout, /Moved aside|Left/);
    await assertManifestMatchesDisk(root);

    const removed = await task("uninstall", root);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /^Removed:\n/);
    assert.doesNotMatch(removed.stdout, /Left:/);
    // A host still listing the bridge would start a server that is gone: each one is named.
    assert.match(removed.stdout, /\nNext:\n- Take the portreeve entry out of each agent host/);
    for (
      const line of [
        "Claude Code: `claude mcp remove --scope user portreeve`",
        "OpenAI Codex: `codex mcp remove portreeve`",
        "Gemini CLI: `gemini mcp remove -s user portreeve`",
      ]
    ) assert.ok(removed.stdout.includes(`\n    ${line}\n`), line);
    // bin/, lib/ and the root itself went too: install made them all.
    await assert.rejects(Deno.lstat(root), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await sim.cleanup();
  }
});

/** A file whose content and kind must survive every install and uninstall attempt. */
async function snapshot(path: string): Promise<string> {
  const info = await Deno.lstat(path);
  if (info.isSymlink) return `link → ${await Deno.readLink(path)}`;
  if (info.isDirectory) return `folder ${JSON.stringify(await walkNames(path))}`;
  return `file ${await Deno.readTextFile(path)}`;
}

async function walkNames(dir: string): Promise<string[]> {
  const disk = await walk(dir);
  return [...disk.files.entries()].map(([path, hash]) => `${path}:${hash}`).concat(disk.folders)
    .sort();
}

Deno.test("install refuses, in one line naming the path, what it did not write; --force moves none of it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-install-" });
  try {
    await Deno.mkdir(`${dir}/outside`);
    await Deno.writeTextFile(`${dir}/outside/theirs`, "#!/bin/sh\necho theirs\n");
    const cases: { name: string; names: string; prepare: (root: string) => Promise<string> }[] = [
      {
        name: "a foreign launcher in a bin/ that was there before",
        names: "bin/portreeve-mcp",
        prepare: async (root) => {
          await Deno.mkdir(`${root}/bin`, { recursive: true });
          await Deno.writeTextFile(`${root}/bin/portreeve-mcp`, "#!/bin/sh\necho mine\n");
          return `${root}/bin/portreeve-mcp`;
        },
      },
      {
        name: "a git checkout in lib/portreeve-mcp/",
        names: "lib/portreeve-mcp",
        prepare: async (root) => {
          await Deno.mkdir(`${root}/lib/portreeve-mcp/.git`, { recursive: true });
          await Deno.writeTextFile(`${root}/lib/portreeve-mcp/.git/HEAD`, "ref: refs/heads/main\n");
          await Deno.writeTextFile(`${root}/lib/portreeve-mcp/main.js`, "// my work\n");
          return `${root}/lib/portreeve-mcp`;
        },
      },
      {
        name: "a symbolic link in place of the launcher",
        names: "bin/portreeve-mcp",
        prepare: async (root) => {
          await Deno.mkdir(`${root}/bin`, { recursive: true });
          await Deno.symlink(`${dir}/outside/theirs`, `${root}/bin/portreeve-mcp`);
          return `${root}/bin/portreeve-mcp`;
        },
      },
      {
        name: "a dotfiles bin/ linked from elsewhere",
        names: "bin",
        prepare: async (root) => {
          await Deno.symlink(`${dir}/outside`, `${root}/bin`);
          return `${root}/bin`;
        },
      },
      {
        name: "a symbolic link in place of the lib folder",
        names: "lib",
        prepare: async (root) => {
          await Deno.symlink(`${dir}/outside`, `${root}/lib`);
          return `${root}/lib`;
        },
      },
    ];
    for (const [i, { name, names, prepare }] of cases.entries()) {
      const root = `${dir}/root-${i}`;
      await Deno.mkdir(root);
      const path = await prepare(root);
      const before = await snapshot(path);
      const outside = await snapshot(`${dir}/outside`);
      for (const force of [[], ["--force"]]) {
        const refused = await task("install", root, force);
        assert.equal(refused.code, 1, `${name} ${force}: ${refused.stdout}`);
        assert.match(
          refused.stderr,
          new RegExp(
            `^portreeve-mcp install: refusing to (replace|install into|install through) ${root}/${names}: [^\\n]*\\n$`,
          ),
          name,
        );
        assert.doesNotMatch(refused.stderr, /--force/, `${name}: --force would not help`);
        assert.equal(refused.stdout, "", `${name}: nothing moved aside`);
      }
      const left = await task("uninstall", root);
      assert.equal(left.code, 1, `${name}: ${left.stdout}`);
      assert.match(left.stdout, /Left:\n.*this installer did not write/, name);
      assert.equal(await snapshot(path), before, `${name}: untouched`);
      assert.equal(await snapshot(`${dir}/outside`), outside, `${name}: nothing written through`);
      assert.deepEqual(
        [...Deno.readDirSync(root)].map((e) => e.name).filter((n) => n.includes(".replaced-")),
        [],
        `${name}: nothing renamed`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("install --force moves aside an edited file in its own folder; uninstall names it, keeps an edited file and says what next", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-install-" });
  try {
    const root = `${dir}/root`;
    const layout = installLayout(root);
    const first = await task("install", root);
    assert.equal(first.code, 0, first.stderr);

    // The bundle edited by hand: refused, then moved aside by --force, which says so.
    await Deno.writeTextFile(layout.bundle, "\n// edited by hand\n", { append: true });
    const edited = await Deno.readTextFile(layout.bundle);
    const refused = await task("install", root);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /refusing to replace \S+\/main\.js: it was changed after this installer wrote it; move it away yourself, or run `[^`]+install --force`/,
    );
    const forced = await task("install", root, ["--force"]);
    assert.equal(forced.code, 0, forced.stderr);
    const moves = [...forced.stdout.matchAll(/^Moved aside \(--force\): (\S+) → (\S+) /gm)];
    assert.deepEqual(moves.map((m) => m[1]), [layout.bundle]);
    const aside = moves[0][2];
    assert.equal(await Deno.readTextFile(aside), edited, "kept whole");

    // A chunk edited after that install: uninstall keeps it and says what to do next.
    const chunk = (await walk(root)).files.keys().find((path) => /\/chunk-.*\.js$/.test(path))!;
    await Deno.writeTextFile(`${root}/${chunk}`, "// mine now\n", { append: true });
    const uninstalled = await task("uninstall", root);
    assert.equal(uninstalled.code, 1, uninstalled.stdout);
    assert.match(uninstalled.stdout, /chunk-\S+\.js: was changed after this installer wrote it/);
    assert.match(uninstalled.stdout, /manifest\.json: it still lists the files left above/);
    assert.match(
      uninstalled.stdout,
      new RegExp(
        `Moved aside by an earlier \`install --force\`[^\\n]*\\n  ${aside}: was ${layout.bundle}; look at it, then delete it yourself`,
      ),
    );
    const next = new RegExp(
      `- ${root}/${chunk} was changed after install wrote it, so it was kept [^\\n]*` +
        "delete it yourself \\(`rm ([^`]+)`\\), then run `([^`]+)` again to remove the rest",
    );
    const step = next.exec(uninstalled.stdout);
    assert.ok(step, uninstalled.stdout);
    assert.match(uninstalled.stdout, /claude mcp remove --scope user portreeve/);

    // The next step, followed as printed, finishes the job.
    const removedByHand = await run("/bin/sh", ["-c", `rm ${step[1]}`], userEnv());
    assert.equal(removedByHand.code, 0, removedByHand.stderr);
    const again = await task("uninstall", root);
    assert.equal(again.code, 0, again.stdout);
    assert.doesNotMatch(again.stdout, /was changed/);
    await assert.rejects(Deno.lstat(layout.manifest), Deno.errors.NotFound);
    // Only what --force moved aside is left, the person's to delete.
    assert.deepEqual(
      (await walk(root)).files.keys().toArray(),
      [aside.slice(root.length + 1)],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("install takes no --socket: the launcher finds the socket at each start", async () => {
  const out = await task("install", "/nonexistent-root", ["--socket", "/tmp/p.sock"]);
  assert.equal(out.code, 2);
  assert.match(out.stderr, /^portreeve-mcp install: install takes no --socket[^\n]*\n$/);
});
