/**
 * Builds the tree an install root and a release folder share (see `src/shared/install_layout.ts`):
 * the launcher, a fresh self-contained bundle of the bridge and a Deno runtime, in `dir`.
 * `install` copies it into the install root through its manifest writer; the release script
 * packs it as `portreeve-mcp-<target>/`. The npm package (scripts/npm_package.ts) is the same
 * tree without a runtime: its one launcher runs npm's Deno on Linux and macOS alike.
 */
import { fileURLToPath } from "node:url";
import { installLayout } from "../../shared/install_layout.ts";
import { type LauncherRuntime, launcherScript } from "./launcher.ts";
import { tlsHint } from "../../shared/tls_hint.ts";
import { taskCommand } from "../../shared/hints.ts";

const ENTRY = fileURLToPath(new URL("../../../main.ts", import.meta.url));

export class BuildError extends Error {}

/**
 * `deno bundle`'s arguments for `entry` into `outdir`: self-contained, minified, code-split
 * (the bundle task builds dist/ with the same).
 */
export function bundleArgs(outdir: string, entry: string): string[] {
  return [
    "bundle",
    "--quiet",
    "--frozen",
    "--minify",
    "--platform=deno",
    "--code-splitting",
    "--outdir",
    outdir,
    entry,
  ];
}

/** `deno bundle` of main.ts into `outdir`, with the Deno that runs this code. */
async function bundle(outdir: string): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: bundleArgs(outdir, ENTRY),
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    const said = new TextDecoder().decode(out.stderr);
    const hint = tlsHint(said, () => taskCommand("install").command);
    throw new BuildError(`bundling the bridge failed: ${said}${hint ? `\n${hint}` : ""}`);
  }
}

/**
 * Writes launcher, bundle and `runtime` (a Deno executable for `os`) under `dir`, which must
 * be empty or missing. Returns every file written, relative to `dir`, sorted.
 */
export async function buildTree(dir: string, runtime: string, os: string): Promise<string[]> {
  const layout = installLayout(dir);
  await Deno.mkdir(`${dir}/bin`, { recursive: true });
  await Deno.mkdir(layout.lib, { recursive: true });
  await bundle(layout.lib);
  await Deno.copyFile(runtime, layout.deno);
  await Deno.chmod(layout.deno, 0o755);
  await Deno.writeTextFile(layout.launcher, launcherScript(os), { mode: 0o755 });
  await Deno.chmod(layout.launcher, 0o755);
  return await filesUnder(dir);
}

/**
 * Writes the npm package's tree under `dir` (empty or missing): the launcher for any OS that
 * runs npm's Deno, and the bundle. Returns every file written, relative to `dir`, sorted.
 */
export async function buildNpmTree(dir: string): Promise<string[]> {
  const layout = installLayout(dir);
  const runtime: LauncherRuntime = "npm";
  await Deno.mkdir(`${dir}/bin`, { recursive: true });
  await Deno.mkdir(layout.lib, { recursive: true });
  await bundle(layout.lib);
  await Deno.writeTextFile(layout.launcher, launcherScript("any", runtime), { mode: 0o755 });
  await Deno.chmod(layout.launcher, 0o755);
  return await filesUnder(dir);
}

/** Regular files under `dir`, relative to it, sorted. */
async function filesUnder(dir: string, prefix = ""): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(prefix === "" ? dir : `${dir}/${prefix}`)) {
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory) files.push(...await filesUnder(dir, rel));
    else files.push(rel);
  }
  return files.sort();
}
