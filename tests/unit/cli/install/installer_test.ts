/**
 * The install guards the README promises, on a small made-up tree in-process (the real
 * `deno task install` end to end, with a real bundle and Deno, is
 * tests/reliability/install_test.ts): what the installer did not write — a foreign launcher, a
 * git checkout, a link in place of a file or of a folder, a file changed after install — is
 * neither replaced by install nor removed by uninstall; `--force` moves it aside, never deletes;
 * the manifest names exactly what is on disk; an upgrade needs no --force; uninstall removes
 * everything it wrote and the folders it made.
 */
import assert from "node:assert/strict";
import {
  checkInstall,
  InstallRefused,
  installTree,
  uninstallRoot,
} from "../../../../src/cli/install/installer.ts";
import { MANIFEST_PATH, parseManifest, sha256 } from "../../../../src/cli/install/manifest.ts";
import { symlink } from "../../../support/symlink.ts";

const LAUNCHER = "bin/portreeve-mcp";
const BUNDLE = "lib/portreeve-mcp/main.js";
const CHUNK = "lib/portreeve-mcp/chunk-A.js";

/** A built tree like tree.ts makes, with `tag` in every file; returns its files. */
async function built(dir: string, tag: string): Promise<string[]> {
  const files = { [LAUNCHER]: `launcher ${tag}`, [BUNDLE]: `bundle ${tag}`, [CHUNK]: tag };
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${dir}/${path}`, text, { mode: 0o755 });
  }
  return Object.keys(files).sort();
}

async function scratch(body: (dir: string, root: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-guards-" });
  try {
    await Deno.mkdir(`${dir}/root`);
    await body(dir, `${dir}/root`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function install(root: string, source: string, files: string[], force = false) {
  const said: string[] = [];
  const done = installTree(root, source, files, {
    force,
    version: "0.1.0",
    say: (line) => said.push(line),
    forced: "deno task install --force",
  });
  return done.then(() => said);
}

/** Files (with hashes) and folders under `root`, links named as such. */
async function disk(root: string, rel = "", into = new Map<string, string>()) {
  for await (const entry of Deno.readDir(rel === "" ? root : `${root}/${rel}`)) {
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isSymlink) into.set(path, "link");
    else if (entry.isDirectory) {
      into.set(`${path}/`, "folder");
      await disk(root, path, into);
    } else into.set(path, await sha256(await Deno.readFile(`${root}/${path}`)));
  }
  return into;
}

async function assertManifestIsDisk(root: string): Promise<void> {
  const manifest = parseManifest(await Deno.readTextFile(`${root}/${MANIFEST_PATH}`));
  const found = await disk(root);
  found.delete(MANIFEST_PATH);
  const folders = [...found.keys()].filter((path) => path.endsWith("/")).map((p) => p.slice(0, -1));
  for (const folder of folders) found.delete(`${folder}/`);
  assert.deepEqual(new Map(manifest.files.map((f) => [f.path, f.sha256])), found);
  assert.deepEqual([...manifest.folders].sort(), folders.sort());
  assert.deepEqual([manifest.pending, manifest.partials], [[], []]);
}

Deno.test("install guards: the manifest is the disk; an upgrade needs no --force; uninstall removes all", () =>
  scratch(async (dir, root) => {
    await install(root, `${dir}/v1`, await built(`${dir}/v1`, "1"));
    await assertManifestIsDisk(root);
    const said = await install(root, `${dir}/v2`, await built(`${dir}/v2`, "2"));
    assert.deepEqual(said, [], "an upgrade moves nothing aside and leaves nothing");
    assert.equal(await Deno.readTextFile(`${root}/${BUNDLE}`), "bundle 2");
    await assertManifestIsDisk(root);
    const report = await uninstallRoot(root);
    assert.deepEqual(report.left, []);
    assert.deepEqual([...Deno.readDirSync(root)], [], "bin/ and lib/ went too: install made them");
  }));

/** What is in the way, made under `root` by `prepare`; returns the path it made. */
const IN_THE_WAY: { name: string; prepare: (root: string, outside: string) => Promise<string> }[] =
  [
    {
      name: "a foreign launcher",
      prepare: async (root) => {
        await Deno.mkdir(`${root}/bin`, { recursive: true });
        await Deno.writeTextFile(`${root}/${LAUNCHER}`, "#!/bin/sh\necho mine\n");
        return `${root}/${LAUNCHER}`;
      },
    },
    {
      name: "a git checkout in lib/portreeve-mcp/",
      prepare: async (root) => {
        await Deno.mkdir(`${root}/lib/portreeve-mcp/.git`, { recursive: true });
        await Deno.writeTextFile(`${root}/lib/portreeve-mcp/.git/HEAD`, "ref: refs/heads/main\n");
        await Deno.writeTextFile(`${root}/${BUNDLE}`, "// my work\n");
        return `${root}/lib/portreeve-mcp`;
      },
    },
    {
      name: "a link in place of the launcher",
      prepare: async (root, outside) => {
        await Deno.mkdir(`${root}/bin`, { recursive: true });
        await symlink(`${outside}/theirs`, `${root}/${LAUNCHER}`);
        return `${root}/${LAUNCHER}`;
      },
    },
    {
      name: "a link in place of the lib folder",
      prepare: async (root, outside) => {
        await symlink(outside, `${root}/lib`);
        return `${root}/lib`;
      },
    },
  ];

Deno.test("install guards: what it did not write is refused by name, and left by uninstall", () =>
  scratch(async (dir) => {
    const outside = `${dir}/outside`;
    await Deno.mkdir(outside);
    await Deno.writeTextFile(`${outside}/theirs`, "#!/bin/sh\necho theirs\n");
    const files = await built(`${dir}/tree`, "1");
    for (const [index, { name, prepare }] of IN_THE_WAY.entries()) {
      const root = `${dir}/root-${index}`;
      await Deno.mkdir(root);
      const path = await prepare(root, outside);
      const before = await disk(root);
      const outsideBefore = await disk(outside);
      await assert.rejects(checkInstall(root, files, false), InstallRefused, name);
      const refused = await install(root, `${dir}/tree`, files).then(() => null, (e) => e);
      assert.ok(refused instanceof InstallRefused, `${name}: refused`);
      assert.ok(refused.message.includes(path), `${name} is named: ${refused.message}`);
      assert.match(refused.message, /--force/, `${name}: the way out is named`);
      const left = await uninstallRoot(root);
      assert.ok(left.left.some((entry) => entry.path === path), `${name}: left by uninstall`);
      assert.deepEqual(await disk(root), before, `${name}: untouched`);
      assert.deepEqual(await disk(outside), outsideBefore, `${name}: nothing written through`);
    }
  }));

Deno.test("install guards: --force moves aside, never deletes; a changed file is kept by both", () =>
  scratch(async (dir, root) => {
    await IN_THE_WAY[0].prepare(root, dir);
    await IN_THE_WAY[1].prepare(root, dir);
    const files = await built(`${dir}/tree`, "1");
    const said = await install(root, `${dir}/tree`, files, true);
    const moves = said.map((line) => line.match(/^Moved aside \(--force\): (\S+) → (\S+) /))
      .filter((match) => match !== null);
    assert.deepEqual(moves.map((m) => m[1]).sort(), [
      `${root}/${LAUNCHER}`,
      `${root}/lib/portreeve-mcp`,
    ]);
    for (const [, , aside] of moves) assert.match(aside, /\.replaced-/);
    const checkout = moves.find((m) => m[1].endsWith("/lib/portreeve-mcp"))![2];
    assert.equal(await Deno.readTextFile(`${checkout}/.git/HEAD`), "ref: refs/heads/main\n");

    // Changed after install: an upgrade refuses to replace it, uninstall keeps it.
    await Deno.writeTextFile(`${root}/${BUNDLE}`, "\n// edited by hand\n", { append: true });
    const edited = await Deno.readTextFile(`${root}/${BUNDLE}`);
    const refused = await install(root, `${dir}/tree`, files).then(() => null, (e) => e);
    assert.ok(refused instanceof InstallRefused);
    assert.match(refused.message, /main\.js: it was changed after this/);
    const report = await uninstallRoot(root);
    const why = new Map(report.left.map((entry) => [entry.path, entry.why]));
    assert.match(why.get(`${root}/${BUNDLE}`) ?? "", /was changed after this installer wrote it/);
    assert.match(why.get(`${root}/${MANIFEST_PATH}`) ?? "", /still lists the files left above/);
    assert.equal(await Deno.readTextFile(`${root}/${BUNDLE}`), edited);
    for (const [, , aside] of moves) await Deno.lstat(aside);
    await assert.rejects(Deno.lstat(`${root}/${LAUNCHER}`), Deno.errors.NotFound);
  }));
