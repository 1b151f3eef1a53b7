/**
 * How `setup` reads and writes a host's file. A symbolic link (a dotfiles folder, say) is
 * followed on purpose, said so, and the file it points to is edited where it lies, so the link
 * stays a link; a link to nothing, or to anything but a regular file, is refused. A write goes to
 * a temporary file beside the target (created, never opened through a link) that is then
 * renamed over it, so a reader sees the old file or the new one, never half; it keeps the
 * target's mode, and the file as it was is kept beside it first as the backup. These three
 * names are all that `setup` may write (`writtenPaths`), and its permission grant says so.
 */

const TEMP_SUFFIX = ".portreeve-mcp.tmp";
export const BACKUP_SUFFIX = ".portreeve-mcp.bak";

/** A host file as setup found it. */
export interface HostFile {
  /** The path the host reads. */
  path: string;
  /** The file written: `path`, or where its link points. */
  real: string;
  link: boolean;
  /** Its text; null when there is no file yet. */
  text: string | null;
  mode: number | null;
}

export class HostFileError extends Error {
  override name = "HostFileError";
}

/** The three paths written for a target: the file, its temporary and its backup. */
export function writtenPaths(real: string): string[] {
  return [real, real + TEMP_SUFFIX, real + BACKUP_SUFFIX];
}

export async function readHostFile(path: string): Promise<HostFile> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { path, real: path, link: false, text: null, mode: null };
    }
    throw error;
  }
  let real = path;
  if (info.isSymlink) {
    try {
      real = await Deno.realPath(path);
      info = await Deno.stat(real);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      throw new HostFileError(`${path} is a symbolic link to nothing; fix or remove the link`);
    }
  }
  if (!info.isFile) {
    throw new HostFileError(`${real} is not a regular file; setup edits only a regular file`);
  }
  const text = await Deno.readTextFile(real);
  return { path, real, link: real !== path, text, mode: (info.mode ?? 0o600) & 0o7777 };
}

/**
 * Writes `text` over `file`, keeping its mode and, when it existed, a backup of it first
 * (unless `keepBackup`: the backup there is kept as it is). Resolves to the backup's path.
 */
export async function writeHostFile(
  file: HostFile,
  text: string,
  keepBackup = false,
): Promise<string | null> {
  const mode = file.mode ?? 0o600;
  let backup: string | null = null;
  if (file.text !== null) {
    backup = file.real + BACKUP_SUFFIX;
    if (!keepBackup) await replace(backup, file.text, mode, file.real + TEMP_SUFFIX);
  }
  await replace(file.real, text, mode, file.real + TEMP_SUFFIX);
  return backup;
}

/**
 * The backup's text, or null when there is none (or, for a host whose own command writes its
 * file, none this process may read: setup never writes one there).
 */
export async function readBackup(real: string): Promise<string | null> {
  try {
    const info = await Deno.lstat(real + BACKUP_SUFFIX);
    return info.isFile ? await Deno.readTextFile(real + BACKUP_SUFFIX) : null;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable) {
      return null;
    }
    throw error;
  }
}

async function replace(path: string, text: string, mode: number, temp: string): Promise<void> {
  const file = await createTemp(temp, mode);
  try {
    const bytes = new TextEncoder().encode(text);
    for (let done = 0; done < bytes.length;) done += await file.write(bytes.subarray(done));
    await file.sync();
  } finally {
    file.close();
  }
  await Deno.chmod(temp, mode);
  await Deno.rename(temp, path);
}

/** The temporary file, made new: one a killed run left is removed first (never followed). */
async function createTemp(temp: string, mode: number): Promise<Deno.FsFile> {
  const open = () => Deno.open(temp, { write: true, createNew: true, mode });
  try {
    return await open();
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) {
      if (error instanceof Deno.errors.NotFound) {
        throw new HostFileError(
          `the folder of ${temp.slice(0, -TEMP_SUFFIX.length)} does not exist: start the host ` +
            "once (it makes its folder), then run setup again",
        );
      }
      throw error;
    }
    await Deno.remove(temp);
    return await open();
  }
}
