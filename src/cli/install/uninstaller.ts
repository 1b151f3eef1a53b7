/**
 * What `uninstall` does under an install root: removes every file the manifest lists whose
 * content is still what was installed, every temporary file whose content proves it the
 * installer's (partials.ts), then the folders the installer created that are now empty.
 * Everything else stays, with a reason; a manifest of what it had to leave is kept, so a later
 * run still knows those files. It also finds what an `install --force` moved aside, which is
 * the person's to look at. Every change goes through `DiskWrites` (writes.ts).
 */
import { describe, InstallWriter, look } from "./disk.ts";
import {
  FOLDERS,
  isPartialPath,
  LAUNCHER_PATH,
  LIB_PATH,
  type Manifest,
  MANIFEST_PATH,
  ROOT_FOLDER,
} from "./manifest.ts";
import { clearPartials } from "./partials.ts";
import { fileConflict, isConflict, readManifest, rootConflict, STEPS_IN_WORDS } from "./plan.ts";
import { type DiskWrites, REAL_WRITES } from "./writes.ts";

interface Left {
  path: string;
  why: string;
  /** A file of the installer's that someone changed (kept: it may hold their work). */
  edited?: boolean;
  /** A temporary file an install that was stopped left, whose content cannot be checked. */
  unfinished?: boolean;
}

interface MovedAside {
  /** The name it was moved to. */
  path: string;
  /** The name it had, and whether something is there now. */
  original: string;
  originalFree: boolean;
}

export interface UninstallReport {
  removed: string[];
  left: Left[];
  movedAside: MovedAside[];
}

/** A name `install --force` gives what it moves aside. */
const REPLACED = /^(.+)\.replaced-\d{8}T\d{6}Z(?:-\d+)?$/;

/**
 * What install --force moved aside under `root`: beside the launcher and in the lib folder,
 * and (moved by installers before this one) the bin and lib folders themselves.
 */
async function movedAside(root: string): Promise<MovedAside[]> {
  const found: MovedAside[] = [];
  const places: [string, (name: string) => boolean][] = [
    ["", (name) => name === "bin" || name === "lib"],
    ["bin", (name) => `bin/${name}` === LAUNCHER_PATH],
    ["lib", (name) => `lib/${name}` === LIB_PATH],
    [LIB_PATH, () => true],
  ];
  for (const [folder, ours] of places) {
    const there = folder === "" ? await rootEntries(root) : await look(root, folder);
    if (there.kind !== "folder") continue;
    for (const entry of there.entries) {
      const match = REPLACED.exec(entry);
      if (match === null || !ours(match[1])) continue;
      const prefix = folder === "" ? "" : `${folder}/`;
      const original = `${prefix}${match[1]}`;
      found.push({
        path: `${root}/${prefix}${entry}`,
        original: `${root}/${original}`,
        originalFree: (await look(root, original)).kind === "missing",
      });
    }
  }
  return found;
}

async function rootEntries(root: string) {
  try {
    const entries = (await Array.fromAsync(Deno.readDir(root))).map((entry) => entry.name);
    return { kind: "folder" as const, entries: entries.sort() };
  } catch {
    return { kind: "missing" as const };
  }
}

export async function uninstallRoot(
  root: string,
  writes: DiskWrites = REAL_WRITES,
): Promise<UninstallReport> {
  const atRoot = await rootConflict(root);
  if (atRoot !== null) {
    // Nothing is removed through a link, or under something that is not a folder.
    return { removed: [], left: [{ path: root, why: atRoot.why }], movedAside: [] };
  }
  const report: UninstallReport = { removed: [], left: [], movedAside: await movedAside(root) };
  const manifest = await readManifest(root);
  if (isConflict(manifest)) {
    report.left.push({ path: `${root}/${manifest.path}`, why: manifest.why });
    return report;
  }
  if (manifest === null) return await withoutManifest(root, writes, report);
  const partials = await clearPartials(root, writes, manifest.partials);
  report.removed.push(...partials.removed.map((path) => `${root}/${path}`));
  report.left.push(
    ...partials.left.map((left) => ({ ...left, path: `${root}/${left.path}` })),
  );
  const kept = await removeFiles(root, manifest, writes, report);
  if (kept.length > 0) {
    const writer = new InstallWriter(
      root,
      { ...manifest, files: kept, pending: [], partials: [] },
      writes,
    );
    await writer.commit();
    report.left.push({
      path: `${root}/${MANIFEST_PATH}`,
      why: "it still lists the files left above, so a later install or uninstall knows them",
    });
  } else if ((await look(root, MANIFEST_PATH)).kind === "file") {
    await writes.remove(`${root}/${MANIFEST_PATH}`);
    report.removed.push(`${root}/${MANIFEST_PATH}`);
  }
  await removeFolders(root, manifest, writes, report);
  return report;
}

/** Removes the listed files that are still as installed; returns the entries of those kept. */
async function removeFiles(
  root: string,
  manifest: Manifest,
  writes: DiskWrites,
  report: UninstallReport,
): Promise<Manifest["files"]> {
  const kept: Manifest["files"] = [];
  const listed = [...manifest.files, ...manifest.pending];
  const seen = new Set<string>();
  for (const entry of listed) {
    if (seen.has(entry.path)) continue;
    seen.add(entry.path);
    const found = await look(root, entry.path);
    const conflict = found.kind === "blocked"
      ? { why: `is ${describe(found)}` }
      : fileConflict(root, entry.path, found, manifest, [], STEPS_IN_WORDS);
    if (conflict !== null) {
      const edited = found.kind === "file";
      report.left.push({ path: `${root}/${entry.path}`, why: conflict.why, edited });
      kept.push(...listed.filter((file) => file.path === entry.path));
    } else if (found.kind === "file") {
      await writes.remove(`${root}/${entry.path}`);
      report.removed.push(`${root}/${entry.path}`);
    }
  }
  return kept;
}

/** The folders the installer created, deepest first (the root last), removed when empty. */
async function removeFolders(
  root: string,
  manifest: Manifest,
  writes: DiskWrites,
  report: UninstallReport,
): Promise<void> {
  for (const folder of [...FOLDERS].reverse()) {
    if (!manifest.folders.includes(folder)) continue;
    const found = await look(root, folder);
    if (found.kind !== "folder") continue;
    if (found.entries.length === 0) {
      await writes.remove(`${root}/${folder}`);
      report.removed.push(`${root}/${folder}/`);
    } else {
      report.left.push({
        path: `${root}/${folder}/`,
        why: `it still holds ${found.entries.join(", ")}`,
      });
    }
  }
  if (!manifest.folders.includes(ROOT_FOLDER)) return;
  const entries = [];
  for await (const entry of Deno.readDir(root)) entries.push(entry.name);
  if (entries.length === 0) {
    await writes.remove(root);
    report.removed.push(`${root}/`);
  } else {
    report.left.push({ path: `${root}/`, why: `it still holds ${entries.sort().join(", ")}` });
  }
}

/**
 * No manifest: nothing is this installer's to remove but what proves itself so — temporary
 * files whose content is what their name says, and then the lib folder if that left it empty
 * (what an install stopped before its first manifest leaves). Says what else is there.
 */
async function withoutManifest(
  root: string,
  writes: DiskWrites,
  report: UninstallReport,
): Promise<UninstallReport> {
  const partials = await clearPartials(root, writes, []);
  report.removed.push(...partials.removed.map((path) => `${root}/${path}`));
  report.left.push(...partials.left.map((left) => ({ ...left, path: `${root}/${left.path}` })));
  const lib = await look(root, LIB_PATH);
  const paths = [LAUNCHER_PATH, "bin", "lib", LIB_PATH];
  if (lib.kind === "folder" && lib.entries.every((name) => isPartialPath(`${LIB_PATH}/${name}`))) {
    paths.pop(); // the installer's name, holding nothing but its temporary files (said above)
    if (lib.entries.length === 0) {
      await writes.remove(`${root}/${LIB_PATH}`);
      report.removed.push(`${root}/${LIB_PATH}/`);
    } else {
      report.left.push({
        path: `${root}/${LIB_PATH}/`,
        why: `it still holds ${lib.entries.join(", ")}`,
      });
    }
  }
  for (const path of paths) {
    const found = await look(root, path);
    const shared = (path === "bin" || path === "lib") && found.kind === "folder";
    if (found.kind !== "missing" && found.kind !== "blocked" && !shared) {
      report.left.push({
        path: `${root}/${path}`,
        why: `${
          describe(found)
        } this installer did not write (no manifest at ${root}/${MANIFEST_PATH})`,
      });
    }
  }
  return report;
}
