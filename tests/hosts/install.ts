/**
 * The host CLIs the suite runs, at pinned versions, installed with npm into a cache outside the
 * repository and reused between runs. A failed install is an error that says so: the suite never
 * skips a host it could not install.
 */
import { join } from "node:path";
import { sharedRun } from "./shared_run.ts";

export interface HostPackage {
  host: "claude" | "codex" | "gemini" | "opencode" | "copilot" | "qwen" | "cline";
  name: string;
  version: string;
  bin: string;
}

export const HOST_PACKAGES: readonly HostPackage[] = [
  { host: "claude", name: "@anthropic-ai/claude-code", version: "2.1.197", bin: "claude" },
  { host: "codex", name: "@openai/codex", version: "0.171.0", bin: "codex" },
  { host: "gemini", name: "@google/gemini-cli", version: "0.61.0", bin: "gemini" },
  { host: "opencode", name: "opencode-ai", version: "1.18.33", bin: "opencode" },
  { host: "copilot", name: "@github/copilot", version: "1.0.102", bin: "copilot" },
  { host: "qwen", name: "@qwen-code/qwen-code", version: "0.24.4", bin: "qwen" },
  { host: "cline", name: "cline", version: "3.0.65", bin: "cline" },
];

export function hostPackage(host: HostPackage["host"]): HostPackage {
  const found = HOST_PACKAGES.find((pkg) => pkg.host === host);
  if (found === undefined) throw new Error(`no pinned package for host ${host}`);
  return found;
}

export function cacheRoot(): string {
  const xdg = Deno.env.get("XDG_CACHE_HOME");
  const home = Deno.env.get("HOME");
  const base = xdg !== undefined && xdg !== ""
    ? xdg
    : home === undefined
    ? null
    : join(home, ".cache");
  if (base === null) {
    throw new Error("neither XDG_CACHE_HOME nor HOME is set: no place to cache hosts");
  }
  return join(base, "portreeve-mcp-hosts");
}

/** `@scope/name@1.2.3` as one directory name. */
function directoryName(pkg: HostPackage): string {
  return `${pkg.name.replace(/^@/, "").replace("/", "+")}@${pkg.version}`;
}

const INSTALL_TIMEOUT_MS = 300_000;
const installs = new Map<string, Promise<string>>();

/** The absolute path of the host's executable, installing it first when the cache lacks it. */
export function installedBin(pkg: HostPackage): Promise<string> {
  return sharedRun(installs, `${pkg.name}@${pkg.version}`, () => install(pkg));
}

/** Installs `pkg` under `root` (default: the shared cache) unless it is already there. */
export async function install(pkg: HostPackage, root = cacheRoot()): Promise<string> {
  const dir = join(root, directoryName(pkg));
  const bin = join(dir, "node_modules", ".bin", pkg.bin);
  const marker = join(dir, "installed.json");
  if (await exists(marker) && await exists(bin)) return bin;
  // Install beside the final place, then rename: a killed install never looks complete.
  await Deno.mkdir(root, { recursive: true });
  const staging = `${dir}.partial-${Deno.pid}`;
  await Deno.remove(staging, { recursive: true }).catch(() => {});
  await Deno.mkdir(staging, { recursive: true });
  try {
    await npmInstall(pkg, staging);
  } catch (error) {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
    throw error;
  }
  await Deno.writeTextFile(
    join(staging, "installed.json"),
    JSON.stringify({ name: pkg.name, version: pkg.version }),
  );
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await Deno.rename(staging, dir);
  return bin;
}

async function npmInstall(pkg: HostPackage, staging: string): Promise<void> {
  const output = await new Deno.Command("npm", {
    args: [
      "install",
      "--prefix",
      staging,
      "--no-save",
      "--no-fund",
      "--no-audit",
      "--loglevel=error",
      `${pkg.name}@${pkg.version}`,
    ],
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(INSTALL_TIMEOUT_MS),
  }).output().catch((error: unknown) => {
    throw new Error(
      `installing ${pkg.name}@${pkg.version} with npm did not finish (${String(error)}); ` +
        "the host suite needs npm and the npm registry (limit: 5 minutes)",
    );
  });
  if (!output.success) {
    const why = new TextDecoder().decode(output.stderr).trim().split("\n").slice(-5).join("\n");
    throw new Error(
      `installing ${pkg.name}@${pkg.version} with npm failed (exit ${output.code}); ` +
        `the host suite cannot run without it:\n${why}`,
    );
  }
  if (!await exists(join(staging, "node_modules", ".bin", pkg.bin))) {
    throw new Error(
      `npm installed ${pkg.name}@${pkg.version} but it has no \`${pkg.bin}\` program`,
    );
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
