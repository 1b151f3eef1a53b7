/**
 * How the installer looks at and changes the disk under an install root, without ever
 * following a symbolic link below the root: every path is checked with `lstat` component by
 * component, files are created only with O_EXCL (which refuses to write through a link) and
 * moved into place with `rename` (which replaces a link, never its target). Every change goes
 * through `DiskWrites` (writes.ts).
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
import { type DiskWrites, REAL_WRITES } from "./writes.ts";

export type Found =
  | { kind: "missing" }
  | { kind: "file"; sha256: string }
  | { kind: "symlink"; target: string }
  | { kind: "folder"; entries: string[] }
  | { kind: "other" }
  /** A folder above it (named by `by`) is not a real folder: a link or a file. */
  | { kind: "blocked"; by: string };

async function lstat(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    // A file where a folder should be: nothing is at the path below it.
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
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
  if (info.isSymlink) return { kind: "symlink", target: await Deno.readLink(`${root}/${rel}`) };
  if (info.isFile) {
    return { kind: "file", sha256: await sha256(await Deno.readFile(`${root}/${rel}`)) };
  }
  if (info.isDirectory) {
    const entries = (await Array.fromAsync(Deno.readDir(`${root}/${rel}`))).map((e) => e.name);
    return { kind: "folder", entries: entries.sort() };
  }
  return { kind: "other" };
}

/** Whether `bytes` begins with `prefix`. */
export function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (prefix.length > bytes.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/** A word for what was found, for messages. */
export function describe(found: Found): string {
  switch (found.kind) {
    case "missing":
      return "missing";
    case "file":
      return "a file";
    case "symlink":
      return `a symbolic link (to ${found.target})`;
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
 * Writes an installation and keeps its manifest, through `writes` (writes.ts). Before the
 * first file it commits a manifest whose `pending` and `partials` already name what it is
 * about to write, so a killed install leaves nothing the next run cannot recognise; every
 * temporary name carries the hash of its content (manifest.ts).
 */
export class InstallWriter {
  readonly #root: string;
  readonly #manifest: Manifest;
  readonly #writes: DiskWrites;
  readonly #pid: number;
  readonly #written: ManifestFile[] = [];

  constructor(root: string, manifest: Manifest, writes: DiskWrites = REAL_WRITES, pid = Deno.pid) {
    this.#root = root;
    this.#manifest = manifest;
    this.#writes = writes;
    this.#pid = pid;
  }

  /** Announces the files about to be written (path and new hash) in the committed manifest. */
  async announce(files: ManifestFile[]): Promise<void> {
    this.#manifest.pending = files;
    this.#manifest.partials = files.map((file) => partialPath(file.path, this.#pid, file.sha256));
    await this.commit();
  }

  /** Creates `rel` when it is missing; records it as ours when this call created it. */
  async folder(rel: string): Promise<void> {
    try {
      await this.#writes.mkdir(`${this.#root}/${rel}`);
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
    const partial = `${this.#root}/${partialPath(rel, this.#pid, announced.sha256)}`;
    await this.#create(partial, bytes, mode);
    try {
      await this.#writes.rename(partial, `${this.#root}/${rel}`);
    } catch (error) {
      // Created by this call, with these bytes, a moment ago.
      await this.#writes.remove(partial).catch(() => {});
      throw error;
    }
    this.#written.push(announced);
  }

  /** Removes a file the manifest lists and whose content the caller found still ours. */
  async remove(rel: string): Promise<void> {
    await this.#writes.remove(`${this.#root}/${rel}`);
  }

  /** Writes the manifest: what this run wrote, no longer pending. */
  async finish(): Promise<void> {
    this.#manifest.files = this.#written;
    this.#manifest.pending = [];
    this.#manifest.partials = [];
    await this.commit();
  }

  async commit(): Promise<void> {
    const bytes = new TextEncoder().encode(formatManifest(this.#manifest));
    const partial = `${this.#root}/${partialPath(MANIFEST_PATH, this.#pid, await sha256(bytes))}`;
    await this.#create(partial, bytes, 0o644);
    await this.#writes.rename(partial, `${this.#root}/${MANIFEST_PATH}`);
  }

  /**
   * Creates the temporary file `path` with `bytes`. Its name holds the bytes' hash, so a file
   * already there is the same content from an install stopped under the same process id: when
   * it is the start of `bytes` (cut short, or whole), it is replaced; anything else stops us.
   */
  async #create(path: string, bytes: Uint8Array<ArrayBuffer>, mode: number): Promise<void> {
    try {
      await this.#writes.create(path, bytes, mode);
      return;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
    const info = await Deno.lstat(path);
    if (!info.isFile || !startsWith(bytes, await Deno.readFile(path))) {
      throw new Error(`${path} is in the way of a temporary file and is not the installer's`);
    }
    await this.#writes.remove(path);
    await this.#writes.create(path, bytes, mode);
  }
}
