/**
 * The installer's rules on small made-up trees, in-process (the real `deno task install` end to
 * end, with a real bundle and Deno, is tests/reliability/install_test.ts; every write, and a stop
 * at each, is walked in tests/unit/cli/install_walk_test.ts): an install's round trip (the
 * manifest names exactly what is on disk, an upgrade needs no --force, uninstall removes
 * everything it wrote and the folders it made); links and files where its folders belong are
 * refused and never moved; `--force` renames aside only plain files in folders install created;
 * uninstall removes only what its content proves the installer's, temporary files included,
 * whatever the manifest says; a manifest cannot point outside the layout.
 */
import assert from "node:assert/strict";
import { type InstallOptions, installTree } from "../../../../src/cli/install/installer.ts";
import { uninstallRoot } from "../../../../src/cli/install/uninstaller.ts";
import {
  emptyManifest,
  formatManifest,
  MANIFEST_PATH,
  ManifestError,
  parseManifest,
  partialPath,
  sha256,
} from "../../../../src/cli/install/manifest.ts";
import { symlink } from "../../../support/symlink.ts";
import { inScratch, listing, tree } from "../../../support/install_rig.ts";

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

const quiet: InstallOptions = { force: false, version: "0.1.0", say: () => {} };
const forced: InstallOptions = { ...quiet, force: true };

const V1 = {
  "bin/portreeve-mcp": "launcher 1",
  "lib/portreeve-mcp/main.js": "bundle 1",
  "lib/portreeve-mcp/chunk-A.js": "chunk A",
};

Deno.test("installer: links or files where its folders belong are refused, even with --force", () =>
  inScratch(async (dir) => {
    const files = await tree(`${dir}/v1`, V1);
    await Deno.mkdir(`${dir}/elsewhere/bin`, { recursive: true });
    await Deno.writeTextFile(`${dir}/elsewhere/bin/mine`, "mine");
    const cases: [string, (root: string) => Promise<void>, RegExp][] = [
      [
        "the root is a link",
        async (root) => {
          await symlink(`${dir}/elsewhere`, root);
        },
        /: refusing to install into (\S+): it is a symbolic link \(to \S+elsewhere\); install writes only into real folders: set PORTREEVE_MCP_INSTALL_ROOT/,
      ],
      [
        "bin is a link",
        async (root) => {
          await Deno.mkdir(root);
          await symlink(`${dir}/elsewhere/bin`, `${root}/bin`);
        },
        /: refusing to install through \S+\/bin: it is a symbolic link \(to \S+\); install writes only into real folders and never moves a link aside/,
      ],
      ["lib is a link", async (root) => {
        await Deno.mkdir(root);
        await symlink(`${dir}/elsewhere`, `${root}/lib`);
      }, /: refusing to install through \S+\/lib: it is a symbolic link/],
      ["lib/portreeve-mcp is a link", async (root) => {
        await Deno.mkdir(`${root}/lib`, { recursive: true });
        await symlink(`${dir}/elsewhere`, `${root}/lib/portreeve-mcp`);
      }, /: refusing to install through \S+\/lib\/portreeve-mcp: it is a symbolic link/],
      [
        "bin is a file",
        async (root) => {
          await Deno.mkdir(root);
          await Deno.writeTextFile(`${root}/bin`, "a file");
        },
        /: refusing to install through \S+\/bin: it is a file, not a folder; move it away yourself/,
      ],
      ["the root is a file", async (root) => {
        await Deno.writeTextFile(root, "a file");
      }, /: refusing to install into \S+: it is a file, not a folder; choose another install root/],
    ];
    for (const [i, [name, prepare, message]] of cases.entries()) {
      const root = `${dir}/root-${i}`;
      await prepare(root);
      const before = await listing(dir);
      for (const options of [quiet, forced]) {
        await assert.rejects(installTree(root, `${dir}/v1`, files, options), message, name);
        assert.deepEqual(await listing(dir), before, `${name}: nothing moved or written`);
      }
      const report = await uninstallRoot(root);
      assert.deepEqual(report.removed, [], name);
      assert.deepEqual(await listing(dir), before, `${name}: uninstall changed nothing`);
    }
  }));

Deno.test("installer: --force renames aside only plain files in folders install created", () =>
  inScratch(async (dir, root) => {
    const files = await tree(`${dir}/v1`, V1);
    // bin/ was there first (a shared folder); lib/ and lib/portreeve-mcp/ are install's.
    await Deno.mkdir(`${root}/bin`, { recursive: true });
    await installTree(root, `${dir}/v1`, files, quiet);
    assert.deepEqual(parseManifest(await Deno.readTextFile(`${root}/${MANIFEST_PATH}`)).folders, [
      "lib",
      "lib/portreeve-mcp",
    ]);
    // A hand-edited bundle in install's own folder: --force may move it, and says so.
    await Deno.writeTextFile(`${root}/lib/portreeve-mcp/main.js`, "edited");
    await assert.rejects(
      installTree(root, `${dir}/v1`, files, quiet),
      /refusing to replace \S+\/main\.js: it was changed after this installer wrote it; move it away yourself, or install again with --force/,
    );
    const said: string[] = [];
    await installTree(root, `${dir}/v1`, files, {
      ...forced,
      say: (line) => said.push(line),
      now: () => new Date(Date.UTC(2030, 0, 2, 3, 4, 5)),
    });
    assert.deepEqual(said, [
      `Moved aside (--force): ${root}/lib/portreeve-mcp/main.js → ${root}/lib/portreeve-mcp/` +
      "main.js.replaced-20300102T030405Z (it was changed after this installer wrote it)",
    ]);
    assert.equal(
      await Deno.readTextFile(`${root}/lib/portreeve-mcp/main.js.replaced-20300102T030405Z`),
      "edited",
    );
    // In the shared bin/, a changed launcher is the person's to move: --force does not.
    await Deno.writeTextFile(`${root}/bin/portreeve-mcp`, "my launcher");
    const before = await listing(root);
    await assert.rejects(
      installTree(root, `${dir}/v1`, files, forced),
      /refusing to replace \S+\/bin\/portreeve-mcp: it was changed after this installer wrote it; install moves nothing aside in a folder it did not create \(bin\/\)/,
    );
    assert.deepEqual(await listing(root), before);
    await Deno.writeTextFile(`${root}/bin/portreeve-mcp`, "launcher 1");
    // A link or a folder where a file goes, even in install's folder: never moved.
    for (
      const put of [
        () => symlink(`${dir}/v1/bin/portreeve-mcp`, `${root}/lib/portreeve-mcp/chunk-A.js`),
        () => Deno.mkdir(`${root}/lib/portreeve-mcp/chunk-A.js`),
      ]
    ) {
      await Deno.remove(`${root}/lib/portreeve-mcp/chunk-A.js`);
      await put();
      const was = await listing(root);
      await assert.rejects(
        installTree(root, `${dir}/v1`, files, forced),
        /refusing to replace \S+\/chunk-A\.js: it is (a symbolic link|an empty folder)[^;]*; install never/,
      );
      assert.deepEqual(await listing(root), was);
    }
  }));

Deno.test("installer: an install killed half-way is finished by the next one, without --force", () =>
  inScratch(async (dir, root) => {
    const v1 = await tree(`${dir}/v1`, V1);
    await installTree(root, `${dir}/v1`, v1, quiet);
    // Version 2 starts: it announces its files, writes one file and part of another, dies.
    const v2 = await tree(`${dir}/v2`, {
      "bin/portreeve-mcp": "launcher 2",
      "lib/portreeve-mcp/main.js": "bundle 2",
      "lib/portreeve-mcp/chunk-B.js": "chunk B",
    });
    const manifest = parseManifest(await Deno.readTextFile(`${root}/${MANIFEST_PATH}`));
    const hashes = new Map<string, string>();
    for (const path of v2) hashes.set(path, await sha256(await Deno.readFile(`${dir}/v2/${path}`)));
    const { InstallWriter } = await import("../../../../src/cli/install/disk.ts");
    const writer = new InstallWriter(root, manifest, undefined, 4242);
    await writer.announce(v2.map((path) => ({ path, sha256: hashes.get(path)! })));
    await writer.file("lib/portreeve-mcp/main.js", new TextEncoder().encode("bundle 2"), 0o644);
    const cut = partialPath("bin/portreeve-mcp", 4242, hashes.get("bin/portreeve-mcp")!);
    await Deno.writeTextFile(`${root}/${cut}`, "launc");

    // The next install recognises old and new content alike, and the copy cut short.
    await installTree(root, `${dir}/v2`, v2, quiet);
    assert.equal(await Deno.readTextFile(`${root}/lib/portreeve-mcp/main.js`), "bundle 2");
    assert.deepEqual(await listing(root), [
      "bin/",
      "bin/portreeve-mcp",
      "lib/",
      "lib/portreeve-mcp/",
      "lib/portreeve-mcp/chunk-B.js",
      "lib/portreeve-mcp/main.js",
      "lib/portreeve-mcp/manifest.json",
    ], "chunk-A was stale; the partial went");
    const report = await uninstallRoot(root);
    assert.deepEqual(report.left, []);
    assert.deepEqual(await listing(root), []);
  }));

Deno.test("installer: uninstall deletes a file, temporary ones too, only when its content proves it ours", () =>
  inScratch(async (dir, root) => {
    await installTree(root, `${dir}/v1`, await tree(`${dir}/v1`, V1), quiet);
    const whole = new TextEncoder().encode("launcher 9");
    const hash = await sha256(whole);
    const named = (pid: number) => partialPath("bin/portreeve-mcp", pid, hash);
    await Deno.writeFile(`${root}/${named(1)}`, whole); // whole: the name's hash
    await Deno.writeTextFile(`${root}/${named(2)}`, "launch"); // cut short
    await Deno.writeTextFile(`${root}/${named(3)}`, "someone's notes"); // not ours
    await Deno.writeTextFile(`${root}/bin/.portreeve-mcp.4.partial`, "old style, no hash");
    // A file of the install, edited since: kept, said, and named in the manifest kept.
    await Deno.writeTextFile(`${root}/lib/portreeve-mcp/main.js`, "bundle 1, edited");
    // An edited manifest lists them all as its temporary files.
    const manifest = parseManifest(await Deno.readTextFile(`${root}/${MANIFEST_PATH}`));
    manifest.partials = [named(1), named(2), named(3), "bin/.portreeve-mcp.4.partial"];
    await Deno.writeTextFile(`${root}/${MANIFEST_PATH}`, formatManifest(manifest));

    const report = await uninstallRoot(root);
    assert.ok(report.removed.includes(`${root}/${named(1)}`));
    const left = report.left.map((
      { path, unfinished },
    ) => [path.slice(root.length + 1), unfinished]);
    assert.deepEqual(left.filter(([path]) => String(path).endsWith(".partial")), [
      [named(2), true],
      [named(3), true],
      ["bin/.portreeve-mcp.4.partial", false],
    ]);
    assert.equal(await Deno.readTextFile(`${root}/${named(3)}`), "someone's notes");
    assert.deepEqual(
      report.left.find(({ path }) => path.endsWith("/main.js")),
      {
        path: `${root}/lib/portreeve-mcp/main.js`,
        why: "was changed after this installer wrote it",
        edited: true,
      },
    );
    assert.equal(await Deno.readTextFile(`${root}/lib/portreeve-mcp/main.js`), "bundle 1, edited");
    const kept = parseManifest(await Deno.readTextFile(`${root}/${MANIFEST_PATH}`));
    assert.deepEqual(kept.files.map(({ path }) => path), ["lib/portreeve-mcp/main.js"]);
    assert.equal(
      await Deno.readTextFile(`${root}/bin/.portreeve-mcp.4.partial`),
      "old style, no hash",
    );
  }));

Deno.test("installer: a manifest naming anything outside the install layout is refused whole", () => {
  const valid = { ...emptyManifest("0.1.0") };
  const hash = "0".repeat(64);
  for (
    const path of [
      "../../etc/passwd",
      "/etc/passwd",
      "lib/portreeve-mcp/../../x",
      "lib/other/x",
      "bin/other",
      "lib/portreeve-mcp/sub/x",
      "lib/portreeve-mcp/manifest.json",
    ]
  ) {
    const text = JSON.stringify({ ...valid, files: [{ path, sha256: hash }] });
    assert.throws(() => parseManifest(text), ManifestError, path);
  }
  assert.throws(
    () => parseManifest(JSON.stringify({ ...valid, folders: ["/home"] })),
    ManifestError,
  );
  for (const partial of ["bin/x", "bin/.x.partial", "lib/.x.1.partial", "bin/../.x.1.partial"]) {
    assert.throws(() => parseManifest(JSON.stringify({ ...valid, partials: [partial] })), partial);
  }
  const ok = {
    ...valid,
    files: [{ path: "lib/portreeve-mcp/main.js", sha256: hash }],
    partials: [`bin/.portreeve-mcp.12.${hash}.partial`, "lib/portreeve-mcp/.main.js.3.partial"],
  };
  assert.deepEqual(parseManifest(JSON.stringify(ok)).files, ok.files);
  assert.deepEqual(parseManifest(JSON.stringify(ok)).partials, ok.partials);
});

Deno.test("installer: an install by the earlier, manifest-less installer is refused with what to do", () =>
  inScratch(async (dir, root) => {
    await tree(root, {
      "bin/portreeve-mcp": "#!/bin/sh\n# portreeve-mcp launcher written by `deno task install`\n",
      "lib/portreeve-mcp/main.js": "old bundle",
    });
    const files = await tree(`${dir}/v1`, V1);
    const before = await listing(root);
    for (const options of [quiet, forced]) {
      await assert.rejects(
        installTree(root, `${dir}/v1`, files, options),
        /refusing to install into \S+: it is a folder holding 1 entry and no manifest, so this installer did not create it .*earlier portreeve-mcp.*delete it yourself/,
      );
    }
    assert.deepEqual(await listing(root), before);
  }));

Deno.test("installer: a root the install made is removed by uninstall once empty; one that was there stays", () =>
  inScratch(async (dir) => {
    const v1 = await tree(`${dir}/v1`, V1);
    // A custom root (PORTREEVE_MCP_INSTALL_ROOT) that did not exist: the install's own.
    const made = `${dir}/custom/root`;
    await installTree(made, `${dir}/v1`, v1, quiet);
    await installTree(made, `${dir}/v1`, v1, quiet); // an upgrade in place keeps knowing it
    const gone = await uninstallRoot(made);
    assert.ok(gone.removed.includes(`${made}/`), JSON.stringify(gone.removed));
    await assert.rejects(Deno.lstat(made), Deno.errors.NotFound);
    // A root that was there before stays, even empty.
    const there = `${dir}/there`;
    await Deno.mkdir(there);
    await installTree(there, `${dir}/v1`, v1, quiet);
    await uninstallRoot(there);
    assert.deepEqual(await listing(there), []);
    // A root the install made that holds something else now is left, and said.
    await installTree(made, `${dir}/v1`, v1, quiet);
    await Deno.writeTextFile(`${made}/notes.txt`, "mine");
    const left = await uninstallRoot(made);
    assert.deepEqual(left.left.find(({ path }) => path === `${made}/`), {
      path: `${made}/`,
      why: "it still holds notes.txt",
    });
  }));
