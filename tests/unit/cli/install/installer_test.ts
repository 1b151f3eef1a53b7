/**
 * An install's round trip on a small made-up tree in-process (the real `deno task install` end
 * to end, with a real bundle and Deno, is tests/reliability/install_test.ts): the manifest names
 * exactly what is on disk; an upgrade needs no --force; uninstall removes everything it wrote
 * and the folders it made. What it did not write, and `--force`, are held by
 * tests/unit/cli/installer_test.ts and install_walk_test.ts.
 */
import assert from "node:assert/strict";
import { installTree } from "../../../../src/cli/install/installer.ts";
import { uninstallRoot } from "../../../../src/cli/install/uninstaller.ts";
import { MANIFEST_PATH, parseManifest, sha256 } from "../../../../src/cli/install/manifest.ts";

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
    steps: { forced: "run `deno task install --force`", again: "run `deno task install`" },
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
