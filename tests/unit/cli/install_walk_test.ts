/**
 * Every file install writes, walked (src/cli/install/writes.ts declares the one way it changes
 * the disk). A recording `DiskWrites` sees every change of a fresh install, an upgrade (with a
 * stale file and a file someone else keeps in the shared bin/) and an uninstall, and checks at
 * each that it is declared: a file is created only under a temporary name whose content it
 * holds and that the manifest on disk already announces (the manifest's own temporary name
 * carries its hash), renamed only onto the file it stands for, and removed only when its
 * content proves it the installer's. Then the install is stopped at every change, and half-way
 * through every file it writes: nothing of anyone else's changes, the next install finishes
 * without --force leaving exactly what the manifest lists, and an uninstall instead leaves
 * nothing but what it names.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { type InstallOptions, installTree } from "../../../src/cli/install/installer.ts";
import { uninstallRoot } from "../../../src/cli/install/uninstaller.ts";
import {
  FOLDERS,
  isPartialPath,
  type Manifest,
  MANIFEST_PATH,
  parseManifest,
  partialHash,
  partialTarget,
  sha256,
} from "../../../src/cli/install/manifest.ts";
import { type DiskWrites, REAL_WRITES } from "../../../src/cli/install/writes.ts";
import { startsWith } from "../../../src/cli/install/disk.ts";
import { inScratch, listing, tree } from "../../support/install_rig.ts";

/** The real layout (bin/portreeve-mcp, the private deno, the bundle and its chunks), small. */
const V1 = {
  "bin/portreeve-mcp": "#!/bin/sh\n# launcher 1\n",
  "lib/portreeve-mcp/deno": "deno 1".repeat(50),
  "lib/portreeve-mcp/main.js": "bundle 1".repeat(40),
  "lib/portreeve-mcp/chunk-OLD.js": "chunk old",
};
const V2 = {
  "bin/portreeve-mcp": "#!/bin/sh\n# launcher 2\n",
  "lib/portreeve-mcp/deno": "deno 1".repeat(50), // unchanged across versions
  "lib/portreeve-mcp/main.js": "bundle 2".repeat(40),
  "lib/portreeve-mcp/chunk-NEW.js": "chunk new",
};
/** Someone else's, in and beside the folders install uses. */
const FOREIGN = { "bin/other-tool": "theirs", "notes.txt": "theirs too", "lib/x/y": "and this" };

class Killed extends Error {}

type Change =
  | { op: "create"; path: string; bytes: Uint8Array<ArrayBuffer> }
  | { op: "rename"; path: string; to: string }
  | { op: "mkdir" | "mkdirAll" | "remove"; path: string };

/** `writes` with `observe` called before each change. */
function watched(observe: (change: Change) => Promise<void>, writes = REAL_WRITES): DiskWrites {
  return {
    async create(path, bytes, mode) {
      await observe({ op: "create", path, bytes });
      await writes.create(path, bytes, mode);
    },
    async rename(path, to) {
      await observe({ op: "rename", path, to });
      await writes.rename(path, to);
    },
    async mkdir(path) {
      await observe({ op: "mkdir", path });
      await writes.mkdir(path);
    },
    async mkdirAll(path) {
      await observe({ op: "mkdirAll", path });
      await writes.mkdirAll(path);
    },
    async remove(path) {
      await observe({ op: "remove", path });
      await writes.remove(path);
    },
  };
}

async function manifestOnDisk(root: string): Promise<Manifest | null> {
  try {
    return parseManifest(await Deno.readTextFile(`${root}/${MANIFEST_PATH}`));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/**
 * Asserts `change` is one install or uninstall may make under `root`; `fresh` is what the
 * running install writes (by path), to recognise a copy an earlier run cut short.
 */
async function assertDeclared(
  root: string,
  change: Change,
  fresh: Record<string, string>,
  seen: Seen,
) {
  const rel = (path: string) => {
    assert.ok(path.startsWith(`${root}/`) || path === root, `${path} is under the root`);
    return path.slice(root.length + 1);
  };
  const where = `${change.op} ${change.path}`;
  // Uninstall removes its folders after the manifest: the last one seen still says whose.
  const manifest = await manifestOnDisk(root) ?? seen.manifest;
  seen.manifest = manifest;
  const replaced = seen.replaced;
  seen.replaced = null;
  if (replaced !== null) {
    assert.ok(
      change.op === "create" && change.path === replaced.path &&
        startsWith(change.bytes, replaced.bytes),
      `${where}: what was removed from ${replaced.path} is then written whole in its place`,
    );
  }
  switch (change.op) {
    case "mkdirAll":
      assert.equal(change.path, root, where);
      return;
    case "mkdir":
      assert.ok(FOLDERS.some((folder) => folder === rel(change.path)), where);
      return;
    case "create": {
      const name = rel(change.path);
      assert.ok(isPartialPath(name), `${where}: files are created under a temporary name`);
      const hash = partialHash(name);
      assert.equal(await sha256(change.bytes), hash, `${where}: it holds what its name says`);
      const target = partialTarget(name)!;
      if (target === MANIFEST_PATH) return; // its hash is in its name: nothing can announce it
      assert.ok(
        manifest?.pending.some((file) => file.path === target && file.sha256 === hash) &&
          manifest.partials.includes(name),
        `${where}: announced in the manifest on disk before its first byte`,
      );
      return;
    }
    case "rename": {
      const name = rel(change.path);
      assert.equal(rel(change.to), partialTarget(name), `${where}: onto the file it stands for`);
      const bytes = await Deno.readFile(change.path);
      assert.equal(await sha256(bytes), partialHash(name), `${where}: whole`);
      return;
    }
    case "remove": {
      const name = rel(change.path);
      const info = await Deno.lstat(change.path);
      if (info.isDirectory) {
        assert.ok(manifest?.folders.includes(name), `${where}: a folder install created`);
        assert.deepEqual(await Array.fromAsync(Deno.readDir(change.path)), [], `${where}: empty`);
        return;
      }
      assert.ok(info.isFile && !info.isSymlink, `${where}: a plain file`);
      const bytes = await Deno.readFile(change.path);
      const hash = await sha256(bytes);
      if (isPartialPath(name)) {
        const cutShort = fresh[partialTarget(name)!];
        const whole = hash === partialHash(name);
        const start = cutShort !== undefined &&
          await sha256(new TextEncoder().encode(cutShort)) === partialHash(name) &&
          cutShort.startsWith(new TextDecoder().decode(bytes));
        if (!whole && !start) {
          // Only in the way of the same content under the same name: checked at the next change.
          seen.replaced = { path: change.path, bytes };
        }
        return;
      }
      const listed = [...manifest?.files ?? [], ...manifest?.pending ?? []];
      assert.ok(
        name === MANIFEST_PATH || listed.some((f) => f.path === name && f.sha256 === hash),
        `${where}: listed in the manifest with this very content`,
      );
    }
  }
}

/** What the walk remembers between changes. */
interface Seen {
  manifest: Manifest | null;
  /** A temporary file removed to be written again whole, checked at the next change. */
  replaced: { path: string; bytes: Uint8Array } | null;
}

const OPTIONS: InstallOptions = { force: false, version: "0.1.0", say: () => {} };

/** A root with someone else's files in place, and version 1 installed (or not). */
async function world(dir: string, installed: boolean): Promise<string> {
  const root = `${dir}/root`;
  await tree(root, FOREIGN);
  if (installed) await installTree(root, `${dir}/v1`, await tree(`${dir}/v1`, V1), OPTIONS);
  await tree(`${dir}/v2`, V2);
  return root;
}

async function foreignIntact(root: string, where: string): Promise<void> {
  for (const [path, text] of Object.entries(FOREIGN)) {
    assert.equal(await Deno.readTextFile(`${root}/${path}`), text, `${where}: ${path} untouched`);
  }
}

Deno.test("install walk: every change install and uninstall make is declared, and each file announced first", () =>
  inScratch(async (dir) => {
    const root = await world(dir, false);
    const written = new Set<string>();
    const seen: Seen = { manifest: null, replaced: null };
    const record = (fresh: Record<string, string>) =>
      watched(async (change) => {
        await assertDeclared(root, change, fresh, seen);
        if (change.op === "rename") written.add(change.to.slice(root.length + 1));
      });
    const v1 = Object.keys(V1).sort();
    await installTree(root, `${dir}/v1`, await tree(`${dir}/v1`, V1), {
      ...OPTIONS,
      writes: record(V1),
    });
    const v2 = Object.keys(V2).sort();
    await installTree(root, `${dir}/v2`, v2, { ...OPTIONS, writes: record(V2) });
    assert.deepEqual(
      [...written].sort(),
      [...new Set([...v1, ...v2, MANIFEST_PATH])].sort(),
      "every file written is one of the tree's or the manifest",
    );
    const report = await uninstallRoot(root, record({}));
    assert.deepEqual(report.left, []);
    await foreignIntact(root, "after uninstall");
    assert.deepEqual(await listing(root), [
      "bin/",
      "bin/other-tool",
      "lib/",
      "lib/x/",
      "lib/x/y",
      "notes.txt",
    ]);
  }));

/** `REAL_WRITES` that dies at change `at` (cutting a file in half when `midWrite`). */
function dying(at: number, midWrite: boolean): { writes: DiskWrites; count: () => number } {
  let n = 0;
  let dead = false;
  const writes: DiskWrites = watched((change) => {
    if (dead || n++ !== at) return Promise.resolve(dead ? Promise.reject(new Killed()) : undefined);
    dead = true;
    if (midWrite && change.op === "create") {
      const half = change.bytes.subarray(0, Math.floor(change.bytes.length / 2));
      return Deno.writeFile(change.path, half, { createNew: true }).then(() => {
        throw new Killed();
      });
    }
    return Promise.reject(new Killed());
  });
  return { writes, count: () => n };
}

/** How many changes an upgrade (or a first install) from scratch makes, and which create. */
async function changesOf(installed: boolean): Promise<Change["op"][]> {
  const ops: Change["op"][] = [];
  await inScratch(async (dir) => {
    const root = await world(dir, installed);
    const writes = watched((change) => Promise.resolve(void ops.push(change.op)));
    await installTree(root, `${dir}/v2`, Object.keys(V2).sort(), { ...OPTIONS, writes });
  });
  return ops;
}

for (const installed of [false, true]) {
  const what = installed ? "an upgrade" : "a first install";
  Deno.test(`install walk: ${what} stopped at every change, and half-way through every file`, async () => {
    const ops = await changesOf(installed);
    const stops = ops.flatMap((op, at) =>
      op === "create"
        ? [{ at, midWrite: false }, { at, midWrite: true }]
        : [{ at, midWrite: false }]
    );
    for (const { at, midWrite } of stops) {
      const where = `${what} stopped at change ${at} (${ops[at]}${
        midWrite ? ", half written" : ""
      })`;
      for (const next of ["install", "uninstall"] as const) {
        await inScratch(async (dir) => {
          const root = await world(dir, installed);
          const stopped = dying(at, midWrite);
          await assert.rejects(
            installTree(root, `${dir}/v2`, Object.keys(V2).sort(), {
              ...OPTIONS,
              writes: stopped.writes,
            }),
            Killed,
            where,
          );
          await foreignIntact(root, where);
          if (next === "install") {
            const said: string[] = [];
            const seen: Seen = { manifest: null, replaced: null };
            await installTree(root, `${dir}/v2`, Object.keys(V2).sort(), {
              ...OPTIONS,
              say: (line) => said.push(line),
              writes: watched((change) => assertDeclared(root, change, V2, seen)),
            });
            await foreignIntact(root, `${where}, installed again`);
            const manifest = (await manifestOnDisk(root))!;
            assert.deepEqual(manifest.pending, [], where);
            const ours = new Set([...manifest.files.map((f) => f.path), MANIFEST_PATH]);
            const files = (await listing(root)).filter((p) => !p.endsWith("/"));
            // A manifest cut short cannot be told from anyone's file: it stays, and is said.
            const cutManifests = files.filter((path) =>
              partialTarget(path) === MANIFEST_PATH &&
              said.some((line) => line.startsWith(`Left ${root}/${path}: it is a copy an install`))
            );
            assert.ok(cutManifests.length === 0 || midWrite, `${where}: ${cutManifests}`);
            assert.deepEqual(
              files.filter((path) => !Object.hasOwn(FOREIGN, path) && !cutManifests.includes(path)),
              [...ours].sort(),
              `${where}, installed again: exactly what the manifest lists`,
            );
            for (const { path, sha256: hash } of manifest.files) {
              assert.equal(await sha256(await Deno.readFile(`${root}/${path}`)), hash, where);
            }
          } else {
            const report = await uninstallRoot(root);
            await foreignIntact(root, `${where}, uninstalled`);
            const named = new Set(report.left.map(({ path }) => path.replace(/\/$/, "")));
            const files = (await listing(root)).filter((p) => !p.endsWith("/"));
            for (const path of files.filter((p) => !Object.hasOwn(FOREIGN, p))) {
              assert.ok(named.has(`${root}/${path}`), `${where}: ${path} left unnamed`);
            }
            // What it may leave: a copy cut short (and the manifest that still lists it).
            for (const left of report.left) {
              assert.ok(
                left.unfinished || left.path.endsWith("/") || left.path.endsWith(MANIFEST_PATH),
                `${where}: left ${left.path}: ${left.why}`,
              );
            }
          }
        });
      }
    }
  });
}

Deno.test("install walk: nothing under src/cli/install changes the disk but through DiskWrites", async () => {
  const folder = fileURLToPath(new URL("../../../src/cli/install/", import.meta.url));
  // tree.ts builds the tree in a fresh folder of its own (staging, or a release folder).
  const exempt = new Set(["writes.ts", "tree.ts"]);
  const changing =
    /Deno\.(writeFile|writeTextFile|rename|remove|mkdir|chmod|chown|symlink|link|copyFile|truncate|create|open|makeTemp\w*|utime)\w*\(/;
  for await (const entry of Deno.readDir(folder)) {
    if (!entry.name.endsWith(".ts") || exempt.has(entry.name)) continue;
    const text = await Deno.readTextFile(`${folder}/${entry.name}`);
    assert.doesNotMatch(text, changing, `src/cli/install/${entry.name}`);
  }
});
