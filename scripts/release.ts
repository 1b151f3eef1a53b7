/**
 * `deno task release:local [--target T] [--out DIR]`: builds the release archive
 * `portreeve-mcp-<T>.tar.gz` and its `.sha256` in DIR (default dist/). The archive unpacks to
 * one folder, `portreeve-mcp-<T>/`, laid out like an install root (src/shared/install_layout.ts):
 * `bin/portreeve-mcp` (the launcher, which grants the socket it finds at each start), the
 * self-contained bundle and the Deno runtime for T from npm's `deno` package (its per-platform
 * package `@deno/<platform>`), with Deno's licence beside it and ours (LICENSE, MIT) at the top. Nothing else is needed to run it,
 * from wherever the folder is moved. T defaults to this machine's target.
 *
 * The release workflow (.github/workflows/release.yml) runs this for each target and then
 * scripts/release_smoke.sh on the result.
 */
import { dirname, join } from "node:path";
import { buildTree } from "../src/cli/install/tree.ts";
import { sha256 } from "../src/cli/install/manifest.ts";
import { installLayout, LAUNCHER_NAME } from "../src/shared/install_layout.ts";
import { taskCommand, taskUsage } from "../src/shared/hints.ts";
import { parseOptions, UsageError } from "../src/cli/options.ts";

/** The Deno every form of the bridge is built and tested with. */
export const DENO_VERSION = "2.9.6";

/** Release targets: the OS the launcher is written for and npm's package for that runtime. */
export const TARGETS = {
  "linux-x64": { os: "linux", arch: "x86_64", npm: "@deno/linux-x64-glibc" },
  "linux-arm64": { os: "linux", arch: "aarch64", npm: "@deno/linux-arm64-glibc" },
  "darwin-x64": { os: "darwin", arch: "x86_64", npm: "@deno/darwin-x64" },
  "darwin-arm64": { os: "darwin", arch: "aarch64", npm: "@deno/darwin-arm64" },
} as const;
type Target = keyof typeof TARGETS;

function isTarget(name: string): name is Target {
  return Object.hasOwn(TARGETS, name);
}

class ReleaseError extends Error {}

async function output(command: string, args: string[], cwd?: string): Promise<string> {
  const out = await new Deno.Command(command, { args, cwd, stdout: "piped", stderr: "piped" })
    .output().catch((error: unknown) => {
      throw new ReleaseError(`cannot run ${command}: ${String(error)}`);
    });
  if (!out.success) {
    const why = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" ");
    throw new ReleaseError(`${command} ${args.join(" ")} failed: ${why}`);
  }
  return new TextDecoder().decode(out.stdout);
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await Deno.readTextFile(path));
  } catch {
    return undefined;
  }
}

async function isPackage(dir: string, name: string): Promise<boolean> {
  const manifest = await readJson(join(dir, "package.json"));
  return typeof manifest === "object" && manifest !== null &&
    Reflect.get(manifest, "name") === name && Reflect.get(manifest, "version") === DENO_VERSION;
}

interface Runtime {
  deno: string;
  license: string;
}

/**
 * The runtime for `target` from npm: the packages beside the running Deno when it was itself
 * installed from npm (`node_modules/deno` and `node_modules/@deno/<platform>`), else
 * `npm pack` of both into `scratch`.
 */
async function npmRuntime(target: Target, scratch: string): Promise<Runtime> {
  const { npm } = TARGETS[target];
  const modules = dirname(dirname(Deno.execPath()));
  const beside = { deno: join(modules, npm, "deno"), license: join(modules, "deno", "LICENSE") };
  if (
    modules.endsWith("node_modules") && await isPackage(join(modules, npm), npm) &&
    await isPackage(join(modules, "deno"), "deno")
  ) {
    return beside;
  }
  const packed = join(scratch, "npm");
  await Deno.mkdir(packed);
  const names = await output("npm", [
    "pack",
    "--silent",
    "--pack-destination",
    packed,
    `${npm}@${DENO_VERSION}`,
    `deno@${DENO_VERSION}`,
  ]);
  const [platform, main] = names.trim().split("\n").map((name) => join(packed, name.trim()));
  for (const [tarball, into] of [[platform, "platform"], [main, "main"]]) {
    await Deno.mkdir(join(packed, into));
    await output("tar", ["-xzf", tarball, "-C", join(packed, into)]);
  }
  return {
    deno: join(packed, "platform", "package", "deno"),
    license: join(packed, "main", "package", "LICENSE"),
  };
}

function hostTarget(): Target | undefined {
  return Object.keys(TARGETS).filter(isTarget).find((name) =>
    TARGETS[name].os === Deno.build.os && TARGETS[name].arch === Deno.build.arch
  );
}

async function release(target: Target, out: string): Promise<void> {
  if (Deno.version.deno !== DENO_VERSION) {
    throw new ReleaseError(
      `run this with Deno ${DENO_VERSION} (npx -y deno@${DENO_VERSION} task release:local); ` +
        `this is ${Deno.version.deno}`,
    );
  }
  const name = `${LAUNCHER_NAME}-${target}`;
  const scratch = await Deno.makeTempDir({ prefix: "portreeve-mcp-release-" });
  try {
    const runtime = await npmRuntime(target, scratch);
    const folder = join(scratch, name);
    await buildTree(folder, runtime.deno, TARGETS[target].os);
    await Deno.copyFile(runtime.license, `${installLayout(folder).lib}/deno.LICENSE`);
    await Deno.copyFile(new URL("../LICENSE", import.meta.url), join(folder, "LICENSE"));
    await Deno.mkdir(out, { recursive: true });
    const archive = join(out, `${name}.tar.gz`);
    const partial = `${archive}.${Deno.pid}.partial`;
    // COPYFILE_DISABLE keeps macOS's tar from adding ._ files.
    Deno.env.set("COPYFILE_DISABLE", "1");
    await output("tar", ["-czf", partial, "-C", scratch, name]);
    const sum = await sha256(await Deno.readFile(partial));
    await Deno.rename(partial, archive);
    await Deno.writeTextFile(`${archive}.sha256`, `${sum}  ${name}.tar.gz\n`);
    const size = (await Deno.stat(archive)).size;
    console.log(`${archive}  ${(size / 2 ** 20).toFixed(1)} MiB`);
    console.log(`${archive}.sha256  ${sum}`);
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}

const USAGE = `usage: ${taskUsage("release:local")} [--target ${
  Object.keys(TARGETS).join("|")
}] [--out DIR]

Builds DIR/portreeve-mcp-TARGET.tar.gz (default DIR: dist) and its .sha256: one folder,
portreeve-mcp-TARGET/, with bin/portreeve-mcp, the bundle and Deno ${DENO_VERSION} for TARGET
from npm. TARGET defaults to this machine's. Exit codes: 0 built, 1 failed, 2 usage error.`;

const SEE_HELP = taskCommand("release:local", ["--help"]).command;

const RELEASE_OPTIONS = {
  target: { type: "string" },
  out: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

async function main(): Promise<number> {
  let values;
  try {
    values = parseOptions(Deno.args, RELEASE_OPTIONS, SEE_HELP);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`release: ${error.message}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const target = values.target ?? hostTarget();
  if (target === undefined || !isTarget(target)) {
    console.error(`release: --target must be one of ${Object.keys(TARGETS).join(", ")}`);
    return 2;
  }
  try {
    await release(target, values.out ?? "dist");
    return 0;
  } catch (error) {
    if (!(error instanceof ReleaseError)) throw error;
    console.error(`release: ${error.message}`);
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main());
