/**
 * The installer's bookkeeping on a small made-up tree (the real install process is
 * tests/e2e/install_test.ts): an install killed after it announced its files is recognised and
 * finished by the next run without --force; a manifest cannot point outside the layout.
 */
import assert from "node:assert/strict";
import { installTree, uninstallRoot } from "../../../src/cli/install/installer.ts";
import { InstallWriter } from "../../../src/cli/install/disk.ts";
import {
  emptyManifest,
  MANIFEST_PATH,
  ManifestError,
  parseManifest,
  partialPath,
  sha256,
} from "../../../src/cli/install/manifest.ts";
import { symlink } from "../../support/symlink.ts";

const encoder = new TextEncoder();

async function tree(dir: string, files: Record<string, string>): Promise<string[]> {
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${dir}/${path}`, text, { mode: 0o755 });
  }
  return Object.keys(files).sort();
}

const quiet = { force: false, version: "0.1.0", say: () => {} };

/** Runs `body` in a fresh temporary folder holding an empty install root, then removes both. */
async function inScratch(body: (dir: string, root: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-installer-" });
  try {
    const root = `${dir}/root`;
    await Deno.mkdir(root);
    await body(dir, root);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("installer: an install killed half-way is finished by the next one, without --force", () =>
  inScratch(async (dir, root) => {
    const v1 = await tree(`${dir}/v1`, {
      "bin/portreeve-mcp": "launcher 1",
      "lib/portreeve-mcp/main.js": "bundle 1",
      "lib/portreeve-mcp/chunk-A.js": "chunk A",
    });
    await installTree(root, `${dir}/v1`, v1, quiet);

    // Version 2 starts: it announces its files, writes one partial and one file, then dies.
    const v2 = await tree(`${dir}/v2`, {
      "bin/portreeve-mcp": "launcher 2",
      "lib/portreeve-mcp/main.js": "bundle 2",
      "lib/portreeve-mcp/chunk-B.js": "chunk B",
    });
    const manifest = parseManifest(await Deno.readTextFile(`${root}/${MANIFEST_PATH}`));
    const writer = new InstallWriter(root, manifest);
    await writer.announce(
      await Promise.all(v2.map(async (path) => ({
        path,
        sha256: await sha256(encoder.encode(`${Deno.readTextFileSync(`${dir}/v2/${path}`)}`)),
      }))),
    );
    await writer.file("lib/portreeve-mcp/main.js", encoder.encode("bundle 2"), 0o644);
    await Deno.writeTextFile(`${root}/${partialPath("bin/portreeve-mcp", Deno.pid)}`, "launc");

    // The next install recognises old and new content alike, and the partial file.
    await installTree(root, `${dir}/v2`, v2, quiet);
    assert.equal(await Deno.readTextFile(`${root}/lib/portreeve-mcp/main.js`), "bundle 2");
    const names = [...Deno.readDirSync(`${root}/lib/portreeve-mcp`)].map((e) => e.name).sort();
    assert.deepEqual(names, ["chunk-B.js", "main.js", "manifest.json"], "chunk-A was stale");
    assert.deepEqual([...Deno.readDirSync(`${root}/bin`)].map((e) => e.name), ["portreeve-mcp"]);

    const report = await uninstallRoot(root);
    assert.deepEqual(report.left, []);
    assert.deepEqual([...Deno.readDirSync(root)], []);
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
  assert.throws(() => parseManifest(JSON.stringify({ ...valid, partials: ["bin/x"] })));
  const ok = { ...valid, files: [{ path: "lib/portreeve-mcp/main.js", sha256: hash }] };
  assert.deepEqual(parseManifest(JSON.stringify(ok)).files, ok.files);
});

Deno.test("installer: nothing is read, replaced or removed through a link in place of a folder", () =>
  inScratch(async (dir, root) => {
    const files = await tree(`${dir}/v1`, {
      "bin/portreeve-mcp": "launcher",
      "lib/portreeve-mcp/main.js": "bundle",
    });
    await installTree(root, `${dir}/v1`, files, quiet);
    // The installed folder moves elsewhere and a link takes its place: what it points at,
    // manifest included, matches byte for byte, but it is not under the root any more.
    await Deno.rename(`${root}/lib/portreeve-mcp`, `${dir}/elsewhere`);
    await symlink(`${dir}/elsewhere`, `${root}/lib/portreeve-mcp`);
    const before = [...Deno.readDirSync(`${dir}/elsewhere`)].map((e) => e.name).sort();

    const report = await uninstallRoot(root);
    assert.ok(report.left.some(({ path }) => path.endsWith("/lib/portreeve-mcp")), "said so");
    await assert.rejects(
      installTree(root, `${dir}/v1`, files, quiet),
      /refusing to replace \S+\/lib\/portreeve-mcp: it is a symbolic link/,
    );
    assert.deepEqual([...Deno.readDirSync(`${dir}/elsewhere`)].map((e) => e.name).sort(), before);
    assert.equal(await Deno.readTextFile(`${dir}/elsewhere/main.js`), "bundle");
  }));

Deno.test("installer: an install by the earlier, manifest-less installer is refused with what to do", () =>
  inScratch(async (dir, root) => {
    await tree(root, {
      "bin/portreeve-mcp": "#!/bin/sh\n# portreeve-mcp launcher written by `deno task install`\n",
      "lib/portreeve-mcp/main.js": "old bundle",
    });
    const files = await tree(`${dir}/v1`, {
      "bin/portreeve-mcp": "launcher",
      "lib/portreeve-mcp/main.js": "bundle",
    });
    await assert.rejects(
      installTree(root, `${dir}/v1`, files, quiet),
      /refusing to replace \S+: it is a folder holding 1 entry that this installer did not create .*earlier portreeve-mcp.*--force/,
    );
    const moved: string[] = [];
    await installTree(root, `${dir}/v1`, files, {
      ...quiet,
      force: true,
      say: (l) => moved.push(l),
    });
    assert.equal(moved.length, 2, moved.join("\n"));
    assert.equal(await Deno.readTextFile(`${root}/lib/portreeve-mcp/main.js`), "bundle");
  }));
