/**
 * Temporary files an install that was stopped left behind (`.NAME.PID.SHA256.partial`, see
 * manifest.ts). One is removed only when its content proves it is this installer's: it is
 * whole (its SHA-256 is the one in its name), or, during an install that writes the same
 * content again, it is the start of that content. Anything else under such a name (cut short
 * by a stop with nothing to compare it with, or not a plain file) is left and said.
 */
import { look, startsWith } from "./disk.ts";
import { isPartialPath, LIB_PATH, partialHash, partialTarget, sha256 } from "./manifest.ts";
import type { DiskWrites } from "./writes.ts";

interface PartialsOutcome {
  removed: string[];
  /** `unfinished`: a copy cut short, which another install of the same content recognises. */
  left: { path: string; why: string; unfinished: boolean }[];
}

/** Folders an install writes temporary files in. */
const PARTIAL_FOLDERS = ["bin", LIB_PATH] as const;

/** Temporary names in `listed` and in the folders an install writes to, each once. */
async function candidates(root: string, listed: readonly string[]): Promise<string[]> {
  const found = new Set(listed.filter(isPartialPath));
  for (const folder of PARTIAL_FOLDERS) {
    const there = await look(root, folder);
    if (there.kind !== "folder") continue;
    for (const name of there.entries) {
      if (isPartialPath(`${folder}/${name}`)) found.add(`${folder}/${name}`);
    }
  }
  return [...found].sort();
}

/**
 * Removes the provably own temporary files under `root` (`listed` by a manifest, or found by
 * name in bin/ and the lib folder); `fresh` is what this install writes, by path, to recognise
 * a copy that was cut short.
 */
export async function clearPartials(
  root: string,
  writes: DiskWrites,
  listed: readonly string[],
  fresh: ReadonlyMap<string, Uint8Array<ArrayBuffer>> = new Map(),
): Promise<PartialsOutcome> {
  const outcome: PartialsOutcome = { removed: [], left: [] };
  for (const path of await candidates(root, listed)) {
    const found = await look(root, path);
    if (found.kind === "missing" || found.kind === "blocked") continue;
    const hash = partialHash(path);
    if (found.kind !== "file" || hash === null) {
      const why = "is named like an installer's temporary file but is not one";
      outcome.left.push({ path, why, unfinished: false });
      continue;
    }
    if (found.sha256 !== hash && !await startOfFresh(root, path, hash, fresh)) {
      outcome.left.push({
        path,
        why: "is a copy an install did not finish: its content cannot be checked against " +
          "what was being written, so it was left",
        unfinished: true,
      });
      continue;
    }
    await writes.remove(`${root}/${path}`);
    outcome.removed.push(path);
  }
  return outcome;
}

/** Whether the file at `path` is the start of the content this install writes with `hash`. */
async function startOfFresh(
  root: string,
  path: string,
  hash: string,
  fresh: ReadonlyMap<string, Uint8Array<ArrayBuffer>>,
): Promise<boolean> {
  const target = partialTarget(path);
  const bytes = target === null ? undefined : fresh.get(target);
  if (bytes === undefined || await sha256(bytes) !== hash) return false;
  return startsWith(bytes, await Deno.readFile(`${root}/${path}`));
}
