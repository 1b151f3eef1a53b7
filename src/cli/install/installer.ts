/**
 * What `install` and `uninstall` do under an install root, given the files to install (a tree
 * built by `tree.ts`). Nothing here replaces or deletes a file or folder the manifest does
 * not show as this installer's own and unmodified: such a path is a conflict, refused in one
 * line, or with `--force` moved aside (renamed, never deleted) and named.
 */
import { describe, type Found, InstallWriter, look } from "./disk.ts";
import {
  emptyManifest,
  FOLDERS,
  hashesFor,
  LAUNCHER_PATH,
  LIB_PATH,
  type Manifest,
  MANIFEST_PATH,
  ManifestError,
  parseManifest,
  sha256,
} from "./manifest.ts";

/** The installer will not do what was asked without losing something; exit 1. */
export class InstallRefused extends Error {}

export interface Conflict {
  path: string;
  found: Found;
  why: string;
}

export type Say = (line: string) => void;

/** The manifest under `root`, null when there is none; a conflict when it cannot be read. */
async function readManifest(root: string): Promise<Manifest | null | Conflict> {
  const found = await look(root, MANIFEST_PATH);
  // Behind a link or a file: this installer never wrote there, so there is no manifest of ours.
  if (found.kind === "missing" || found.kind === "blocked") return null;
  if (found.kind !== "file") {
    return { path: MANIFEST_PATH, found, why: `is ${describe(found)}, not a manifest` };
  }
  try {
    return parseManifest(await Deno.readTextFile(`${root}/${MANIFEST_PATH}`));
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    return { path: MANIFEST_PATH, found, why: `cannot be read as a manifest (${error.message})` };
  }
}

function isConflict(value: Manifest | null | Conflict): value is Conflict {
  return value !== null && "why" in value;
}

/** Why this installer may not replace what is at `path`, or null when it may. */
function fileConflict(path: string, found: Found, previous: Manifest | null): Conflict | null {
  switch (found.kind) {
    case "missing":
    case "blocked": // the folder above it is the conflict
      return null;
    case "file": {
      const ours = hashesFor(previous, path);
      if (ours.has(found.sha256)) return null;
      const why = ours.size > 0
        ? "was changed after this installer wrote it"
        : "is a file this installer did not write";
      return { path, found, why };
    }
    default:
      return { path, found, why: `is ${describe(found)}, not a file this installer wrote` };
  }
}

interface Plan {
  conflicts: Conflict[];
  /** Files of the previous install that this one does not write, unmodified: removed. */
  stale: string[];
  /** Files of the previous install that this one does not write, changed: left, and said. */
  keep: Conflict[];
  /** An existing empty lib folder, taken over. */
  adopt: string[];
  previous: Manifest | null;
}

async function plan(root: string, files: string[]): Promise<Plan> {
  const result: Plan = { conflicts: [], stale: [], keep: [], adopt: [], previous: null };
  const manifest = await readManifest(root);
  if (isConflict(manifest)) result.conflicts.push(manifest);
  else result.previous = manifest;
  const previous = result.previous;
  for (const folder of FOLDERS) {
    const found = await look(root, folder);
    if (found.kind === "missing" || found.kind === "blocked") continue;
    if (found.kind !== "folder") {
      result.conflicts.push({ path: folder, found, why: `is ${describe(found)}, not a folder` });
    } else if (folder === LIB_PATH && previous === null && !isConflict(manifest)) {
      if (found.entries.length === 0) result.adopt.push(folder);
      else {
        result.conflicts.push({
          path: folder,
          found,
          why: `is ${describe(found)} that this installer did not create (no manifest in it)`,
        });
      }
    }
  }
  for (const path of files) {
    const conflict = fileConflict(path, await look(root, path), previous);
    if (conflict !== null) result.conflicts.push(conflict);
  }
  if (previous === null && await isLegacyLauncher(root)) {
    for (const conflict of result.conflicts) conflict.why += LEGACY;
  }
  for (const { path } of [...(previous?.files ?? []), ...(previous?.pending ?? [])]) {
    if (files.includes(path) || result.stale.includes(path)) continue;
    const found = await look(root, path);
    const conflict = fileConflict(path, found, previous);
    if (conflict !== null) result.keep.push(conflict);
    else if (found.kind === "file") result.stale.push(path);
  }
  return result;
}

/** The first line an earlier installer, which kept no manifest, wrote into its launcher. */
const LEGACY_MARKER = "# portreeve-mcp launcher written by `deno task install`";
const LEGACY = " (an install by an earlier portreeve-mcp, which kept no manifest: check nothing " +
  "of yours is there, then install with --force and delete what it moves aside)";

async function isLegacyLauncher(root: string): Promise<boolean> {
  if ((await look(root, LAUNCHER_PATH)).kind !== "file") return false;
  const text = await Deno.readTextFile(`${root}/${LAUNCHER_PATH}`);
  return text.split("\n").slice(0, 3).includes(LEGACY_MARKER);
}

/** `ROOT/path` renamed aside to a name that says why; returns the new path. */
async function moveAside(root: string, path: string): Promise<string> {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  let aside = `${path}.replaced-${stamp}`;
  for (let n = 2; (await look(root, aside)).kind !== "missing"; n++) {
    aside = `${path}.replaced-${stamp}-${n}`;
  }
  await Deno.rename(`${root}/${path}`, `${root}/${aside}`);
  return aside;
}

/** `forced` is the install command with --force, pasteable, in backticks (or words). */
function refusal(root: string, conflicts: Conflict[], forced: string): InstallRefused {
  const [first, ...more] = conflicts;
  const others = more.length === 0
    ? ""
    : ` (and ${more.length} more: ${more.map((c) => `${root}/${c.path}`).join(", ")})`;
  return new InstallRefused(
    `refusing to replace ${root}/${first.path}: it ${first.why}. Move it away yourself, or run ` +
      `${forced} to have it moved aside to ${first.path}.replaced-<time>${others}`,
  );
}

const FORCED = "install again with --force";

const FORCE_ROUNDS = 3;

/** `--force`: each conflict renamed aside (folders first, which takes what is under them). */
async function moveAsideAll(root: string, conflicts: Conflict[], say: Say): Promise<void> {
  const ordered = [...conflicts].sort((a, b) => a.path.length - b.path.length);
  const moved: string[] = [];
  for (const conflict of ordered) {
    if (moved.some((folder) => conflict.path.startsWith(`${folder}/`))) continue;
    if ((await look(root, conflict.path)).kind === "missing") continue;
    const aside = await moveAside(root, conflict.path);
    moved.push(conflict.path);
    say(`Moved aside (--force): ${root}/${conflict.path} → ${root}/${aside} (it ${conflict.why})`);
  }
}

/** Checks what an install of `files` would replace; throws InstallRefused on a conflict. */
export async function checkInstall(
  root: string,
  files: string[],
  force: boolean,
  forced = FORCED,
): Promise<void> {
  const { conflicts } = await plan(root, files);
  if (conflicts.length > 0 && !force) throw refusal(root, conflicts, forced);
}

/**
 * Installs the tree at `source` (files relative to it) into `root`, saying through `say` what
 * it moved aside (with `force`) and what it left.
 */
export async function installTree(
  root: string,
  source: string,
  files: string[],
  options: { force: boolean; version: string; say: Say; forced?: string },
): Promise<void> {
  const forced = options.forced ?? FORCED;
  let current = await plan(root, files);
  if (current.conflicts.length > 0 && !options.force) {
    throw refusal(root, current.conflicts, forced);
  }
  // Moving a manifest aside can make its folder foreign in turn: a few rounds settle it.
  for (let round = 0; current.conflicts.length > 0; round++) {
    if (round === FORCE_ROUNDS) throw refusal(root, current.conflicts, forced);
    await moveAsideAll(root, current.conflicts, options.say);
    current = await plan(root, files);
  }
  const previous = current.previous;
  const manifest = previous === null ? emptyManifest(options.version) : structuredClone(previous);
  manifest.version = options.version;
  const writer = new InstallWriter(root, manifest);
  for (const folder of FOLDERS) {
    if (current.adopt.includes(folder)) writer.adoptFolder(folder);
    await writer.folder(folder);
  }
  await removePartials(root, previous);
  const contents = new Map<string, Uint8Array<ArrayBuffer>>();
  for (const path of files) contents.set(path, await Deno.readFile(`${source}/${path}`));
  await writer.announce(
    await Promise.all(
      [...contents].map(async ([path, bytes]) => ({ path, sha256: await sha256(bytes) })),
    ),
  );
  for (const [path, bytes] of contents) {
    const mode = (await Deno.stat(`${source}/${path}`)).mode ?? 0o644;
    await writer.file(path, bytes, mode & 0o777);
  }
  for (const path of current.stale) {
    await writer.remove(path);
  }
  for (const kept of current.keep) {
    options.say(`Left ${root}/${kept.path}: it ${kept.why}.`);
  }
  await writer.finish();
}

/** Removes temporary files a killed install left (their names carry its process id). */
async function removePartials(root: string, manifest: Manifest | null): Promise<void> {
  for (const path of manifest?.partials ?? []) {
    if ((await look(root, path)).kind === "file") await Deno.remove(`${root}/${path}`);
  }
}

export interface UninstallReport {
  removed: string[];
  left: { path: string; why: string }[];
}

/**
 * Removes every file the manifest lists whose content is still what was installed, then the
 * folders the installer created that are now empty. Everything else stays, with a reason.
 * Keeps a manifest of what it had to leave, so a later run still knows those files.
 */
export async function uninstallRoot(root: string): Promise<UninstallReport> {
  const report: UninstallReport = { removed: [], left: [] };
  const manifest = await readManifest(root);
  if (isConflict(manifest)) {
    report.left.push({ path: `${root}/${manifest.path}`, why: manifest.why });
    return report;
  }
  if (manifest === null) {
    for (const path of [LAUNCHER_PATH, "bin", "lib", LIB_PATH]) {
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
  await removePartials(root, manifest);
  const kept: Manifest["files"] = [];
  const listed = [...manifest.files, ...manifest.pending];
  const seen = new Set<string>();
  for (const entry of listed) {
    if (seen.has(entry.path)) continue;
    seen.add(entry.path);
    const found = await look(root, entry.path);
    const conflict = found.kind === "blocked"
      ? { why: `is ${describe(found)}` }
      : fileConflict(entry.path, found, manifest);
    if (conflict !== null) {
      report.left.push({ path: `${root}/${entry.path}`, why: conflict.why });
      kept.push(...listed.filter((file) => file.path === entry.path));
    } else if (found.kind === "file") {
      await Deno.remove(`${root}/${entry.path}`);
      report.removed.push(`${root}/${entry.path}`);
    }
  }
  if (kept.length > 0) {
    const writer = new InstallWriter(root, {
      ...manifest,
      files: kept,
      pending: [],
      partials: [],
    });
    await writer.commit();
    report.left.push({
      path: `${root}/${MANIFEST_PATH}`,
      why: "it still lists the files left above, so a later install or uninstall knows them",
    });
  } else if ((await look(root, MANIFEST_PATH)).kind === "file") {
    await Deno.remove(`${root}/${MANIFEST_PATH}`);
    report.removed.push(`${root}/${MANIFEST_PATH}`);
  }
  for (const folder of [...FOLDERS].reverse()) {
    if (!manifest.folders.includes(folder)) continue;
    const found = await look(root, folder);
    if (found.kind !== "folder") continue;
    if (found.entries.length === 0) {
      await Deno.remove(`${root}/${folder}`);
      report.removed.push(`${root}/${folder}/`);
    } else {
      report.left.push({
        path: `${root}/${folder}/`,
        why: `it still holds ${found.entries.join(", ")}`,
      });
    }
  }
  return report;
}
