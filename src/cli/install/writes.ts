/**
 * Every change `install` and `uninstall` make on disk, declared once: nothing under
 * src/cli/install/ creates, renames or removes a path any other way (a test reads the sources
 * for it). So one test can list every file an install writes, check each is named in the
 * manifest on disk before its first byte, and stop the install at each change, and half-way
 * through each file, to see that nothing is lost and the next run recovers.
 */
export interface DiskWrites {
  /**
   * Creates the file `path` with `bytes` and permission bits `mode`, refusing when anything is
   * already there (O_EXCL: a link planted at the name is never written through).
   */
  create(path: string, bytes: Uint8Array<ArrayBuffer>, mode: number): Promise<void>;
  /** Renames `from` to `to` (replacing a file at `to`, never following a link there). */
  rename(from: string, to: string): Promise<void>;
  /** Creates one folder; throws Deno.errors.AlreadyExists when something is there. */
  mkdir(path: string): Promise<void>;
  /** Creates the install root and any missing folder above it. */
  mkdirAll(path: string): Promise<void>;
  /** Removes a file or an empty folder (never recursive). */
  remove(path: string): Promise<void>;
}

export const REAL_WRITES: DiskWrites = {
  async create(path, bytes, mode) {
    await Deno.writeFile(path, bytes, { createNew: true, mode });
    // The umask may have taken bits `mode` asked for (an executable must stay executable).
    await Deno.chmod(path, mode);
  },
  rename: (from, to) => Deno.rename(from, to),
  mkdir: (path) => Deno.mkdir(path),
  mkdirAll: (path) => Deno.mkdir(path, { recursive: true }),
  remove: (path) => Deno.remove(path),
};
