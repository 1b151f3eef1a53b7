/**
 * How the installer looks at and changes the disk under an install root, without ever
 * following a symbolic link below the root: every path is checked with `lstat` component by
 * component, files are created only with O_EXCL (which refuses to write through a link) and
 * moved into place with `rename` (which replaces a link, never its target).
 *
 * `InstallWriter` is the one way `install` writes a file or creates a folder, and it records
 * each in the manifest it commits; a test walks that manifest against the disk.
 */
import {
  formatManifest,
  type Manifest,
  MANIFEST_PATH,
  type ManifestFile,
  partialPath,
  sha256,
} from "./manifest.ts";

export type Found =
  | { kind: "missing" }
  | { kind: "file"; sha256: string }
  | { kind: "symlink" }
  | { kind: "folder"; entries: string[] }
  | { kind: "other" }
  /** A folder above it (named by `by`) is not a real folder: a link or a file. */
  | { kind: "blocked"; by: string };

async function lstat(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** What is at `rel` under `root`, reading a file's content only when it is a regular file. */
export async function look(root: string, rel: string): Promise<Found> {
  const parts = rel.split("/");
  for (let i = 1; i < parts.length; i++) {
    const parent = parts.slice(0, i).join("/");
    const info = await lstat(`${root}/${parent}`);
    if (info === null) return { kind: "missing" };
    if (!info.isDirectory || info.isSymlink) return { kind: "blocked", by: parent };
  }
  const info = await lstat(`${root}/${rel}`);
  if (info === null) return { kind: "missing" };
  if (info.isSymlink) return { kind: "symlink" };
  if (info.isFile) {
    return { kind: "file", sha256: await sha256(await Deno.readFile(`${root}/${rel}`)) };
  }
  if (info.isDirectory) {
    const entries = (await Array.fromAsync(Deno.readDir(`${root}/${rel}`))).map((e) => e.name);
    return { kind: "folder", entries: entries.sort() };
  }
  return { kind: "other" };
}

/** A word for what was found, for messages. */
export function describe(found: Found): string {
  switch (found.kind) {
    case "missing":
      return "missing";
    case "file":
      return "a file";
    case "symlink":
      return "a symbolic link";
    case "folder":
      return found.entries.length === 0
        ? "an empty folder"
        : `a folder holding ${found.entries.length} entr${
          found.entries.length === 1 ? "y" : "ies"
        }`;
    case "other":
      return "neither a file nor a folder";
    case "blocked":
      return `behind ${found.by}, which is not a real folder`;
  }
}

/**
 * Writes an installation and keeps its manifest. Before the first file it commits a manifest
 * whose `pending` and `partials` already name what it is about to write, so a killed install
 * leaves nothing the next run cannot recognise.
 */
export class InstallWriter {
  readonly #root: string;
  readonly #manifest: Manifest;
  readonly #written: ManifestFile[] = [];

  constructor(root: string, manifest: Manifest) {
    this.#root = root;
    this.#manifest = manifest;
  }

  /** Announces the files about to be written (path and new hash) in the committed manifest. */
  async announce(files: ManifestFile[]): Promise<void> {
    this.#manifest.pending = files;
    this.#manifest.partials = [...files.map((file) => file.path), MANIFEST_PATH].map((path) =>
      partialPath(path, Deno.pid)
    );
    await this.commit();
  }

  /** Creates `rel` when it is missing; records it as ours when this call created it. */
  async folder(rel: string): Promise<void> {
    try {
      await Deno.mkdir(`${this.#root}/${rel}`);
      if (!this.#manifest.folders.includes(rel)) this.#manifest.folders.push(rel);
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
  }

  /** Adopts an existing empty folder as ours (nothing in it to lose). */
  adoptFolder(rel: string): void {
    if (!this.#manifest.folders.includes(rel)) this.#manifest.folders.push(rel);
  }

  /**
   * Writes `bytes` to `rel` (beside it first, then renamed over it) and records the hash
   * `announce` gave for it: a file must be announced first, and its bytes are not hashed twice.
   */
  async file(rel: string, bytes: Uint8Array<ArrayBuffer>, mode: number): Promise<void> {
    const announced = this.#manifest.pending.find((file) => file.path === rel);
    if (announced === undefined) throw new Error(`${rel} was written without being announced`);
    const partial = `${this.#root}/${partialPath(rel, Deno.pid)}`;
    await Deno.writeFile(partial, bytes, { createNew: true, mode });
    try {
      await Deno.chmod(partial, mode);
      await Deno.rename(partial, `${this.#root}/${rel}`);
    } catch (error) {
      await Deno.remove(partial).catch(() => {});
      throw error;
    }
    this.#written.push(announced);
  }

  /** Removes a file the manifest lists and whose content is still ours. */
  async remove(rel: string): Promise<void> {
    await Deno.remove(`${this.#root}/${rel}`);
  }

  /** Writes the manifest: what this run wrote, no longer pending. */
  async finish(): Promise<void> {
    this.#manifest.files = this.#written;
    this.#manifest.pending = [];
    this.#manifest.partials = [];
    await this.commit();
  }

  async commit(): Promise<void> {
    const rel = MANIFEST_PATH;
    const partial = `${this.#root}/${partialPath(rel, Deno.pid)}`;
    await Deno.writeTextFile(partial, formatManifest(this.#manifest), { createNew: true });
    await Deno.rename(partial, `${this.#root}/${rel}`);
  }
}
