/**
 * `deno task install [--force]` / `deno task uninstall`: puts `portreeve-mcp` on PATH for the
 * current user, independent of this checkout and of Deno's caches.
 *
 * Under the install root (`$PORTREEVE_MCP_INSTALL_ROOT`, else `~/.deno`) it writes the same
 * tree a release archive holds (`install/tree.ts`): a launcher that grants the bridge the
 * socket it finds at each start, a fresh self-contained bundle and a private copy of the
 * running Deno; and a manifest of what it wrote (`install/manifest.ts`). It never replaces or
 * deletes what the manifest does not show as its own (`install/installer.ts`). Run by the
 * `install` and `uninstall` tasks; it is not part of the bundle.
 */
import { installLayout, LAUNCHER_NAME } from "../shared/install_layout.ts";
import { shellQuote } from "../shared/shell.ts";
import { commandLine, taskCommand, taskStep, taskUsage } from "../shared/hints.ts";
import { HOST_IDS, HOST_PROFILES } from "../profiles/mod.ts";
import { SOFTWARE_VERSION } from "../shared/options.ts";
import { parseOptions, UsageError } from "./options.ts";
import { BuildError, buildTree } from "./install/tree.ts";
import { checkInstall, InstallRefused, installTree } from "./install/installer.ts";
import { LAUNCHER_PATH, LIB_PATH, MANIFEST_PATH } from "./install/manifest.ts";
import { uninstallRoot } from "./install/uninstaller.ts";
import type { Steps } from "./install/plan.ts";
import { uninstallOutcome } from "./install/uninstall_report.ts";

/** The help, spelled for the way this reader runs tasks. */
function installUsage(): string {
  return `usage: ${taskUsage("install")} [--force]
       ${taskUsage("uninstall")}

install    bundles the bridge and installs ${LAUNCHER_NAME} for this user:
             ROOT/${LAUNCHER_PATH}          the launcher; it grants the bridge the socket it
                                           finds at each start (--socket, PORTREEVE_SOCKET,
                                           PORTREEVE_HOME or the default), so one install
                                           serves every socket
             ROOT/${LIB_PATH}/         the bundle, a private copy of deno, manifest.json
           ROOT is $PORTREEVE_MCP_INSTALL_ROOT, else ~/.deno. Installing again upgrades in place.
           It writes only into real folders (ROOT, bin, lib: never through a link) and refuses
           (exit 1, naming the path) to replace anything it did not write, or a file changed
           since it wrote it.
  --force  moves such a thing aside (renamed to PATH.replaced-<time>, never deleted) when it is
           a plain file in a folder install created; never a link, a folder, or anything in a
           folder that was there before (a shared bin: move such a file yourself)
uninstall  removes the files the manifest lists that are unchanged, then the folders install
           created if they are empty; says what it left and why, what --force moved aside, and
           how to take the entry out of each agent host.

Exit codes: 0 ok, 1 refused or failed (something was left), 2 usage error.`;
}

class InstallError extends Error {}

/** `install` (with `args`) as this reader pastes it, keeping an install root given by variable. */
function installStep(args: string[]): string {
  const explicit = Deno.env.get("PORTREEVE_MCP_INSTALL_ROOT");
  return `run ${
    taskStep("install", args, undefined, explicit ? { PORTREEVE_MCP_INSTALL_ROOT: explicit } : {})
  }`;
}

/** How install's refusals say to go on, pasteable. */
function installSteps(): Steps {
  return { forced: installStep(["--force"]), again: installStep([]) };
}

function installRoot(): string {
  const explicit = Deno.env.get("PORTREEVE_MCP_INSTALL_ROOT");
  if (explicit) {
    if (!explicit.startsWith("/")) {
      throw new UsageError(
        `PORTREEVE_MCP_INSTALL_ROOT must be an absolute path (got "${explicit}")`,
      );
    }
    return withoutNewline(explicit.replace(/\/+$/, "") || "/", "PORTREEVE_MCP_INSTALL_ROOT");
  }
  const home = Deno.env.get("HOME");
  if (!home) throw new UsageError("HOME is not set; set PORTREEVE_MCP_INSTALL_ROOT");
  return withoutNewline(`${home}/.deno`, "HOME");
}

/** The launcher refuses to run from a folder whose path holds a newline: so does install. */
function withoutNewline(root: string, origin: string): string {
  if (!root.includes("\n")) return root;
  throw new UsageError(
    `${origin} gives the install root ${JSON.stringify(root)}, whose newline the launcher ` +
      "refuses (a shell can cut the path to name another folder); choose a root without one " +
      "with PORTREEVE_MCP_INSTALL_ROOT",
  );
}

/** The installed launcher's `--version`, run with a socket that exists nowhere. */
async function installedVersion(launcher: string): Promise<string> {
  const out = await new Deno.Command(launcher, {
    args: ["--version"],
    env: { PORTREEVE_SOCKET: "/portreeve-mcp-install-check.sock" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  if (!out.success) {
    throw new InstallError(`the installed launcher failed: ${decoder.decode(out.stderr).trim()}`);
  }
  return decoder.decode(out.stdout).trim();
}

async function install(force: boolean, say: (line: string) => void): Promise<void> {
  const root = installRoot();
  const layout = installLayout(root);
  // Refuse before the build when the launcher, the lib folder or the manifest is not ours.
  await checkInstall(root, [LAUNCHER_PATH], force, installSteps());
  const staging = await Deno.makeTempDir({ prefix: "portreeve-mcp-install-" });
  try {
    const files = await buildTree(staging, Deno.execPath(), Deno.build.os);
    await installTree(root, staging, files, {
      force,
      version: SOFTWARE_VERSION,
      say,
      steps: installSteps(),
    });
  } finally {
    await Deno.remove(staging, { recursive: true });
  }
  const version = await installedVersion(layout.launcher);

  const onPath = (Deno.env.get("PATH") ?? "").split(":").includes(`${root}/bin`);
  say(`Installed ${version}:`);
  say(`  ${layout.launcher}  launcher (grants the socket it finds at each start)`);
  say(`  ${layout.bundle}  self-contained bundle (nothing fetched at run time)`);
  say(`  ${layout.deno}  private copy of ${Deno.execPath()}`);
  say(`  ${root}/${MANIFEST_PATH}  what was written, with SHA-256 hashes`);
  if (!onPath) {
    say(
      `\n${root}/bin is not on your PATH; add it (e.g. in ~/.profile) with ` +
        `\`export PATH=${shellQuote(`${root}/bin`)}:"$PATH"\``,
    );
  }
  const program = { kind: "program", program: layout.launcher } as const;
  say(
    `\nNext: \`${commandLine(["config", "--host", HOST_IDS[0]], program)}\` prints the entry ` +
      `for your agent host (--host ${HOST_IDS.join(", ")}).`,
  );
}

/** Exit 0 when everything the installer wrote is gone, else 1 (with what to do next). */
async function uninstall(say: (line: string) => void): Promise<number> {
  const root = installRoot();
  const explicit = Deno.env.get("PORTREEVE_MCP_INSTALL_ROOT");
  const again = taskStep(
    "uninstall",
    [],
    undefined,
    explicit ? { PORTREEVE_MCP_INSTALL_ROOT: explicit } : {},
  );
  const outcome = uninstallOutcome(root, await uninstallRoot(root), HOST_PROFILES, again);
  for (const line of outcome.lines) say(line);
  return outcome.code;
}

const INSTALL_OPTIONS = {
  force: { type: "boolean" },
  socket: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

async function main(): Promise<number> {
  const [mode, ...rest] = Deno.args;
  const say = (line: string) => console.log(line);
  try {
    const values = parseOptions(rest, INSTALL_OPTIONS, taskCommand(mode, ["--help"]).command);
    if (values.help) {
      console.log(installUsage());
      return 0;
    }
    if (values.socket !== undefined) {
      throw new UsageError(
        "install takes no --socket: the launcher finds the socket each time it starts " +
          "(--socket, PORTREEVE_SOCKET or the default), so one install serves every socket",
      );
    }
    if (mode === "install") {
      await install(values.force ?? false, say);
      return 0;
    }
    if (mode === "uninstall" && values.force === undefined) return await uninstall(say);
    if (mode === "uninstall") {
      throw new UsageError(
        `uninstall takes no --force: it never removes what it did not write; see \`${
          taskCommand("uninstall", ["--help"]).command
        }\``,
      );
    }
    throw new UsageError(installUsage().split("\n").slice(0, 2).join("\n"));
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${LAUNCHER_NAME} ${mode}: ${error.message}`);
      return 2;
    }
    if (
      error instanceof InstallRefused || error instanceof InstallError ||
      error instanceof BuildError || error instanceof Deno.errors.PermissionDenied
    ) {
      console.error(`${LAUNCHER_NAME} ${mode}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

if (import.meta.main) Deno.exit(await main());
