/**
 * What an install would replace under its root, and whether it may. The root and the folders
 * it writes through (bin, lib, lib/portreeve-mcp) must be real folders: a link or a file
 * there is refused and never moved. A file where the install writes one is replaced only when
 * the manifest shows it as this installer's own, unchanged; anything else is a conflict,
 * which `--force` may rename aside only when it is a plain file inside a folder this installer
 * created (the manifest's `folders`): never a link, a folder, or anything in a folder that was
 * there before (a shared `bin`, say).
 */
import { shellQuote } from "../../shared/shell.ts";
import { describe, type Found, look } from "./disk.ts";
import {
  FOLDERS,
  hashesFor,
  isPartialPath,
  LAUNCHER_PATH,
  LIB_PATH,
  type Manifest,
  MANIFEST_PATH,
  ManifestError,
  parseManifest,
} from "./manifest.ts";

export interface Conflict {
  /** Under the root; "" for the root itself. */
  path: string;
  found: Found;
  /** What is wrong, after "it". */
  why: string;
  /** What the person does about it. */
  next: string;
  /** `--force` may rename it aside (a plain file in a folder this installer created). */
  movable: boolean;
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

const ELSEWHERE = "choose another install root with PORTREEVE_MCP_INSTALL_ROOT";

/** How a refusal tells the person to go on, as this reader pastes it. */
export interface Steps {
  /** `install --force`: "run `…`", or words. */
  forced: string;
  /** Installing again: "run `…`", or words. */
  again: string;
}

export const STEPS_IN_WORDS: Steps = {
  forced: "install again with --force",
  again: "install again",
};

/** Move `path` (absolute) away by hand: `mv -i` never overwrites what is at the new name. */
function away(path: string, steps: Steps): string {
  return `move it away yourself (\`mv -i ${shellQuote(path)} ${shellQuote(`${path}.mine`)}\`), ` +
    `then ${steps.again}`;
}

/** The manifest under `root`, null when there is none; a conflict when it cannot be read. */
export async function readManifest(
  root: string,
  steps: Steps = STEPS_IN_WORDS,
): Promise<Manifest | null | Conflict> {
  const found = await look(root, MANIFEST_PATH);
  // Behind a link or a file: this installer never wrote there, so there is no manifest of ours.
  if (found.kind === "missing" || found.kind === "blocked") return null;
  const lib = `${root}/${LIB_PATH}`;
  const next = `without it this installer cannot tell its files from yours: ${away(lib, steps)}`;
  if (found.kind !== "file") {
    return {
      path: MANIFEST_PATH,
      found,
      why: `is ${describe(found)}, not a manifest`,
      next,
      movable: false,
    };
  }
  try {
    return parseManifest(await Deno.readTextFile(`${root}/${MANIFEST_PATH}`));
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    const why = `cannot be read as a manifest (${error.message})`;
    return { path: MANIFEST_PATH, found, why, next, movable: false };
  }
}

export function isConflict(value: Manifest | null | Conflict): value is Conflict {
  return value !== null && "why" in value;
}

/** The folder `path` lies in, under the root. */
function folderOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/"));
}

/**
 * Why this installer may not replace what is at `path`, or null when it may. `created` are the
 * folders it made (only in those may `--force` move a file aside).
 */
export function fileConflict(
  root: string,
  path: string,
  found: Found,
  previous: Manifest | null,
  created: readonly string[],
  steps: Steps,
): Conflict | null {
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
      const name = path.slice(path.lastIndexOf("/") + 1);
      if (created.includes(folderOf(path))) {
        const next = `move it away yourself, or ${steps.forced} to have it moved aside to ` +
          `${name}.replaced-<time>`;
        return { path, found, why, next, movable: true };
      }
      const next = `install moves nothing aside in a folder it did not create ` +
        `(${folderOf(path)}/): ${away(`${root}/${path}`, steps)}`;
      return { path, found, why, next, movable: false };
    }
    case "symlink":
      return {
        path,
        found,
        why: `is ${describe(found)}`,
        next: `install never replaces or moves a link: remove it yourself ` +
          `(\`rm ${shellQuote(`${root}/${path}`)}\`), then ${steps.again}`,
        movable: false,
      };
    default:
      return {
        path,
        found,
        why: `is ${describe(found)}, not a file this installer wrote`,
        next: `install never moves such a thing aside: ${away(`${root}/${path}`, steps)}`,
        movable: false,
      };
  }
}

/** The root itself: missing (install makes it) or a real folder. */
export async function rootConflict(root: string): Promise<Conflict | null> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(root);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  if (info.isSymlink) {
    const found: Found = { kind: "symlink", target: await Deno.readLink(root) };
    return {
      path: "",
      found,
      why: `is ${describe(found)}`,
      next: "install writes only into real folders: set PORTREEVE_MCP_INSTALL_ROOT to the " +
        "folder it points to, or to another folder",
      movable: false,
    };
  }
  if (info.isDirectory) return null;
  const found: Found = info.isFile ? { kind: "file", sha256: "" } : { kind: "other" };
  return {
    path: "",
    found,
    why: `is ${describe(found)}, not a folder`,
    next: ELSEWHERE,
    movable: false,
  };
}

/** A folder install writes through that is not a real folder, or a foreign lib folder. */
function folderConflict(
  root: string,
  steps: Steps,
  folder: string,
  found: Found,
  previous: Manifest | null,
  manifestUnreadable: boolean,
  ownPartials: number,
): Conflict | "adopt" | null {
  if (found.kind === "missing" || found.kind === "blocked") return null;
  if (found.kind === "symlink") {
    return {
      path: folder,
      found,
      why: `is ${describe(found)}`,
      next: "install writes only into real folders and never moves a link aside: make it a " +
        `real folder, or ${ELSEWHERE}`,
      movable: false,
    };
  }
  if (found.kind !== "folder") {
    const why = `is ${describe(found)}, not a folder`;
    return {
      path: folder,
      found,
      why,
      next: `move it away yourself, or ${ELSEWHERE}`,
      movable: false,
    };
  }
  if (folder !== LIB_PATH || previous !== null || manifestUnreadable) return null;
  if (found.entries.length === ownPartials) return "adopt";
  return {
    path: folder,
    found,
    why: `is ${describe(found)} and no manifest, so this installer did not create it (or its ` +
      "manifest is gone)",
    next: away(`${root}/${folder}`, steps),
    movable: false,
  };
}

/** What installing `files` (paths under the root) would do; `steps` say how to go on. */
export async function plan(
  root: string,
  files: readonly string[],
  steps: Steps = STEPS_IN_WORDS,
): Promise<Plan> {
  const result: Plan = { conflicts: [], stale: [], keep: [], adopt: [], previous: null };
  const atRoot = await rootConflict(root);
  if (atRoot !== null) return { ...result, conflicts: [atRoot] };
  const manifest = await readManifest(root, steps);
  if (isConflict(manifest)) result.conflicts.push(manifest);
  else result.previous = manifest;
  const previous = result.previous;
  for (const folder of FOLDERS) {
    const found = await look(root, folder);
    const own = found.kind === "folder" ? await temporaryFiles(root, folder, found.entries) : 0;
    const conflict = folderConflict(
      root,
      steps,
      folder,
      found,
      previous,
      isConflict(manifest),
      own,
    );
    if (conflict === "adopt") result.adopt.push(folder);
    else if (conflict !== null) result.conflicts.push(conflict);
  }
  const created = [...(previous?.folders ?? []), ...result.adopt];
  for (const path of files) {
    const conflict = fileConflict(root, path, await look(root, path), previous, created, steps);
    if (conflict !== null) result.conflicts.push(conflict);
  }
  if (previous === null && await isLegacyLauncher(root)) {
    for (const conflict of result.conflicts) conflict.why += LEGACY;
  }
  for (const { path } of [...(previous?.files ?? []), ...(previous?.pending ?? [])]) {
    if (files.includes(path) || result.stale.includes(path)) continue;
    const found = await look(root, path);
    const conflict = fileConflict(root, path, found, previous, created, steps);
    if (conflict !== null) result.keep.push(conflict);
    else if (found.kind === "file") result.stale.push(path);
  }
  return result;
}

/**
 * How many of `entries` in `folder` are plain files under the installer's temporary names:
 * what an install stopped before its first manifest leaves in the folder it made. Taking such
 * a folder over deletes nothing: a temporary file is removed only when its content proves it
 * (partials.ts); one that cannot is left, and said.
 */
async function temporaryFiles(root: string, folder: string, entries: string[]): Promise<number> {
  let count = 0;
  for (const entry of entries) {
    if (!isPartialPath(`${folder}/${entry}`)) continue;
    if ((await look(root, `${folder}/${entry}`)).kind === "file") count++;
  }
  return count;
}

/** The first line an earlier installer, which kept no manifest, wrote into its launcher. */
const LEGACY_MARKER = "# portreeve-mcp launcher written by `deno task install`";
const LEGACY = " (an install by an earlier portreeve-mcp, which kept no manifest: check that " +
  "nothing of yours is there, then delete it yourself)";

async function isLegacyLauncher(root: string): Promise<boolean> {
  if ((await look(root, LAUNCHER_PATH)).kind !== "file") return false;
  const text = await Deno.readTextFile(`${root}/${LAUNCHER_PATH}`);
  return text.split("\n").slice(0, 3).includes(LEGACY_MARKER);
}

/** The refusal of `conflicts` (those `--force` cannot move first), one line, exit 1. */
export function refusalMessage(root: string, conflicts: readonly Conflict[]): string {
  const ordered = [...conflicts.filter((c) => !c.movable), ...conflicts.filter((c) => c.movable)];
  const [first, ...more] = ordered;
  const where = (c: Conflict) => c.path === "" ? root : `${root}/${c.path}`;
  const isFolder = FOLDERS.some((folder) => folder === first.path);
  const verb = first.path === "" || first.path === MANIFEST_PATH ||
      (isFolder && first.found.kind === "folder")
    ? "install into"
    : isFolder
    ? "install through"
    : "replace";
  const others = more.length === 0
    ? ""
    : ` (and ${more.length} more: ${more.map(where).join(", ")})`;
  return `refusing to ${verb} ${where(first)}: it ${first.why}; ${first.next}.${others}`;
}
