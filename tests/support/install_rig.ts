/** Small made-up install trees in throwaway folders, for the installer's unit tests. */

/** Writes `files` (path → text) under `dir`, executable; returns their paths, sorted. */
export async function tree(dir: string, files: Record<string, string>): Promise<string[]> {
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${path.slice(0, Math.max(0, path.lastIndexOf("/")))}`, {
      recursive: true,
    });
    await Deno.writeTextFile(`${dir}/${path}`, text, { mode: 0o755 });
  }
  return Object.keys(files).sort();
}

/** Runs `body` in a fresh temporary folder with `root` (not made) inside, then removes both. */
export async function inScratch(body: (dir: string, root: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-installer-" });
  try {
    await body(dir, `${dir}/root`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Everything under `dir` without following links, sorted: folders end in `/`, links show their
 * target, files their content (short) — so any change to any of them shows.
 */
export async function listing(dir: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (rel: string) => {
    const here = rel === "" ? dir : `${dir}/${rel}`;
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(here));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
        return;
      }
      throw error;
    }
    for (const entry of entries) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isSymlink) out.push(`${path} -> ${await Deno.readLink(`${dir}/${path}`)}`);
      else if (entry.isDirectory) {
        out.push(`${path}/`);
        await visit(path);
      } else out.push(path);
    }
  };
  await visit("");
  return out.sort();
}
