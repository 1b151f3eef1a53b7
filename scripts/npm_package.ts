/**
 * `deno task package:npm [--out DIR] [--repository URL]`: builds the npm package
 * `@portreeve/mcp` into DIR/package/ and packs it as DIR/portreeve-mcp-<version>.tgz (default
 * DIR: dist/npm). The package is the install tree (src/cli/install/tree.ts) without a runtime:
 * `bin/portreeve-mcp`, the launcher that grants the bridge the socket it finds at each start,
 * for Linux and macOS alike; `lib/portreeve-mcp/`, the bundle; and npm's `deno` package as its
 * one dependency, which the launcher finds as Node finds a dependency. `npm install -g` puts
 * `portreeve-mcp` on PATH; `config` then prints the launcher's path inside that install.
 *
 * The release workflow runs this and `npm publish --provenance` on the tarball; npm's
 * provenance check wants `repository` to name the source repository (--repository).
 */
import { join } from "node:path";
import { BuildError, buildNpmTree } from "../src/cli/install/tree.ts";
import { LAUNCHER_NAME, NPM_PACKAGE } from "../src/shared/install_layout.ts";
import { SOFTWARE_VERSION } from "../src/shared/options.ts";
import { taskCommand, taskUsage } from "../src/shared/hints.ts";
import { parseOptions, UsageError } from "../src/cli/options.ts";
import { HOST_IDS } from "../src/profiles/hosts.ts";
import { DENO_VERSION } from "./release.ts";
import server from "../server.json" with { type: "json" };

const ROOT = new URL("../", import.meta.url);

class PackageError extends Error {}

/**
 * The package's manifest: MIT, one bin, npm's Deno pinned to the version we test with, and
 * `mcpName`, the server's name in the official MCP Registry (server.json), which the registry
 * checks against the package before it lists it.
 */
export function packageManifest(repository: string | undefined): Record<string, unknown> {
  return {
    name: NPM_PACKAGE,
    version: SOFTWARE_VERSION,
    mcpName: server.name,
    description: "MCP server (stdio) for PortReeve, the per-user local port authority: agents " +
      "see and coordinate dev ports; a person approves every consequential change.",
    license: "MIT",
    keywords: ["mcp", "model-context-protocol", "mcp-server", "portreeve", "ports", "agents"],
    bin: { [LAUNCHER_NAME]: `bin/${LAUNCHER_NAME}` },
    files: ["bin/", "lib/", "README.md", "LICENSE"],
    dependencies: { deno: DENO_VERSION },
    os: ["linux", "darwin"],
    cpu: ["x64", "arm64"],
    engines: { node: ">=18" },
    ...(repository === undefined ? {} : { repository: { type: "git", url: repository } }),
  };
}

/** The package's own README: what it is and the three commands a newcomer runs. */
function packageReadme(): string {
  return `# ${NPM_PACKAGE}

\`${LAUNCHER_NAME}\` is an MCP server (stdio) that lets AI agents see and coordinate local
development ports through PortReeve, the per-user port authority, with a person approving every
consequential change. It runs on Linux and macOS with the Deno runtime npm installs beside it,
and grants that runtime, each time it starts, only the PortReeve daemon's socket.

\`\`\`sh
npm install -g ${NPM_PACKAGE}
${LAUNCHER_NAME} config --host claude   # the entry for your agent host, and its add command
${LAUNCHER_NAME} doctor --host claude   # checks the whole path to the daemon
\`\`\`

Hosts: ${HOST_IDS.join(", ")}. \`config\` prints the absolute path of this install, so a host
started from a desktop finds it too; it reads and writes no host file.
\`npx -y ${NPM_PACKAGE} config --host claude\` gives a first look, but points into npx's cache,
which npm may clear: install with npm before adding the entry to a host.
`;
}

async function run(command: string, args: string[], cwd?: string): Promise<string> {
  const out = await new Deno.Command(command, { args, cwd, stdout: "piped", stderr: "piped" })
    .output().catch((error: unknown) => {
      throw new PackageError(`cannot run ${command}: ${String(error)}`);
    });
  if (!out.success) {
    const why = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" ");
    throw new PackageError(`${command} ${args.join(" ")} failed: ${why}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** Builds DIR/package and packs it; returns the tarball's path. */
export async function buildPackage(out: string, repository?: string): Promise<string> {
  const license = new URL("LICENSE", ROOT);
  const licenseText = await Deno.readTextFile(license).catch(() => {
    throw new PackageError("LICENSE is missing at the repository root; the package ships it");
  });
  const folder = join(out, "package");
  await Deno.remove(folder, { recursive: true }).catch(() => {});
  await buildNpmTree(folder);
  await Deno.writeTextFile(
    join(folder, "package.json"),
    `${JSON.stringify(packageManifest(repository), null, 2)}\n`,
  );
  await Deno.writeTextFile(join(folder, "README.md"), packageReadme());
  await Deno.writeTextFile(join(folder, "LICENSE"), licenseText);
  const name = (await run("npm", [
    "pack",
    "--silent",
    "--pack-destination",
    out,
    folder,
  ])).trim().split("\n").at(-1)!;
  return join(out, name);
}

const USAGE = `usage: ${taskUsage("package:npm")} [--out DIR] [--repository URL]

Builds the npm package ${NPM_PACKAGE} ${SOFTWARE_VERSION} into DIR/package/ and packs it as a
.tgz in DIR (default DIR: dist/npm): the launcher, the bundle, and npm's deno@${DENO_VERSION} as
its dependency. --repository sets package.json's repository (npm provenance checks it).
Exit codes: 0 built, 1 failed, 2 usage error.`;

const OPTIONS = {
  out: { type: "string" },
  repository: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

async function main(): Promise<number> {
  let values;
  try {
    values = parseOptions(Deno.args, OPTIONS, taskCommand("package:npm", ["--help"]).command);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`package:npm: ${error.message}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  try {
    await Deno.mkdir(values.out ?? "dist/npm", { recursive: true });
    const tarball = await buildPackage(values.out ?? "dist/npm", values.repository);
    console.log(tarball);
    return 0;
  } catch (error) {
    if (!(error instanceof PackageError) && !(error instanceof BuildError)) throw error;
    console.error(`package:npm: ${error.message}`);
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main());
