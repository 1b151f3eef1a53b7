/**
 * What `install` does under an install root, given the files to install (a tree built by
 * `tree.ts`). Nothing here replaces or deletes a file or folder the manifest does not show as
 * this installer's own and unmodified (plan.ts says which, and what `--force` may move); such
 * a path is refused in one line naming it, or with `--force` renamed aside (never deleted)
 * and named. Every change goes through `DiskWrites` (writes.ts).
 */
import { InstallWriter, look } from "./disk.ts";
import { emptyManifest, FOLDERS, ROOT_FOLDER, sha256 } from "./manifest.ts";
import { clearPartials } from "./partials.ts";
import { type Conflict, plan, refusalMessage, type Steps, STEPS_IN_WORDS } from "./plan.ts";
import { type DiskWrites, REAL_WRITES } from "./writes.ts";

/** The installer will not do what was asked without losing something; exit 1. */
export class InstallRefused extends Error {}

type Say = (line: string) => void;

export interface InstallOptions {
  force: boolean;
  version: string;
  say: Say;
  /** How refusals say to go on (pasteable commands, or words). */
  steps?: Steps;
  writes?: DiskWrites;
  /** The process id temporary names carry. */
  pid?: number;
  /** The time a name moved aside carries; defaults to now. */
  now?: () => Date;
}

/** Checks what an install of `files` would replace; throws InstallRefused on a conflict. */
export async function checkInstall(
  root: string,
  files: string[],
  force: boolean,
  steps: Steps = STEPS_IN_WORDS,
): Promise<void> {
  refuseConflicts(root, (await plan(root, files, steps)).conflicts, force);
}

/** Refuses unless every conflict is one `--force` may move and `force` is given. */
function refuseConflicts(root: string, conflicts: readonly Conflict[], force: boolean): void {
  if (conflicts.length === 0) return;
  if (force && conflicts.every((conflict) => conflict.movable)) return;
  throw new InstallRefused(refusalMessage(root, conflicts));
}

/** `ROOT/path` renamed aside to a name that says why; returns the new path. */
async function moveAside(
  root: string,
  path: string,
  writes: DiskWrites,
  now: Date,
): Promise<string> {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  let aside = `${path}.replaced-${stamp}`;
  for (let n = 2; (await look(root, aside)).kind !== "missing"; n++) {
    aside = `${path}.replaced-${stamp}-${n}`;
  }
  await writes.rename(`${root}/${path}`, `${root}/${aside}`);
  return aside;
}

/**
 * Installs the tree at `source` (files relative to it) into `root`, saying through `say` what
 * it moved aside (with `force`) and what it left.
 */
export async function installTree(
  root: string,
  source: string,
  files: string[],
  options: InstallOptions,
): Promise<void> {
  const writes = options.writes ?? REAL_WRITES;
  const current = await plan(root, files, options.steps);
  refuseConflicts(root, current.conflicts, options.force);
  const now = (options.now ?? (() => new Date()))();
  for (const conflict of current.conflicts) {
    const aside = await moveAside(root, conflict.path, writes, now);
    options.say(
      `Moved aside (--force): ${root}/${conflict.path} → ${root}/${aside} (it ${conflict.why})`,
    );
  }
  const previous = current.previous;
  const manifest = previous === null ? emptyManifest(options.version) : structuredClone(previous);
  manifest.version = options.version;
  const writer = new InstallWriter(root, manifest, writes, options.pid);
  // A root this install makes (a custom PORTREEVE_MCP_INSTALL_ROOT) is its to take away again.
  const rootMade = await Deno.lstat(root).then(() => false, () => true);
  await writes.mkdirAll(root);
  if (rootMade && !manifest.folders.includes(ROOT_FOLDER)) manifest.folders.push(ROOT_FOLDER);
  for (const folder of FOLDERS) {
    if (current.adopt.includes(folder)) writer.adoptFolder(folder);
    await writer.folder(folder);
  }
  const contents = new Map<string, Uint8Array<ArrayBuffer>>();
  for (const path of files) contents.set(path, await Deno.readFile(`${source}/${path}`));
  const leftovers = await clearPartials(root, writes, previous?.partials ?? [], contents);
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
  for (const kept of [...current.keep, ...leftovers.left]) {
    options.say(`Left ${root}/${kept.path}: it ${kept.why}.`);
  }
  await writer.finish();
}
