/**
 * `deno task install [--socket PATH]` / `deno task uninstall`: puts `portreeve-mcp` on PATH for
 * the current user, independent of this checkout and of Deno's caches.
 *
 * Under the install root (`$PORTREEVE_MCP_INSTALL_ROOT`, else `~/.deno`) it writes a fresh
 * bundle (every dependency inside, so nothing is fetched or looked up in a cache at run time),
 * a private copy of the running Deno executable (so no npx cache or `deno upgrade` can pull it
 * away), and a launcher that runs the bundle under the one permission set of
 * `src/permissions.ts`, granted for the socket found now. See `src/install_layout.ts`. Run by
 * the `install` and `uninstall` tasks; it is not part of the bundle.
 */
import { fileURLToPath } from "node:url";
import { confinedFlags, RUN_ENV } from "../permissions.ts";
import { locateSocket, SocketPathError } from "../socket_location.ts";
import { type InstallLayout, installLayout, LAUNCHER_NAME } from "../install_layout.ts";
import { shellJoin, shellQuote } from "../shell.ts";
import { SOFTWARE_VERSION } from "../version.ts";
import { parseOptions, UsageError } from "./options.ts";

const USAGE = `usage: deno task install [--socket PATH]
       deno task uninstall

install    bundles the bridge and installs ${LAUNCHER_NAME} for this user:
             ROOT/bin/${LAUNCHER_NAME}          launcher (runs the bundle confined to one socket)
             ROOT/lib/${LAUNCHER_NAME}/         the bundle and a private copy of deno
           ROOT is $PORTREEVE_MCP_INSTALL_ROOT, else ~/.deno. The socket is --socket, else
           $PORTREEVE_SOCKET, else the platform default; reinstall if it moves.
uninstall  removes both again (only files this installer wrote).

Exit codes: 0 ok, 1 failed, 2 usage error.`;

/** First line of every launcher; uninstall removes only files that carry it. */
const MARKER = `# ${LAUNCHER_NAME} launcher written by \`deno task install\``;
const ENTRY = fileURLToPath(new URL("../../main.ts", import.meta.url));

class InstallError extends Error {}

function installRoot(): string {
  const explicit = Deno.env.get("PORTREEVE_MCP_INSTALL_ROOT");
  if (explicit) {
    if (!explicit.startsWith("/")) {
      throw new SocketPathError(
        `PORTREEVE_MCP_INSTALL_ROOT must be an absolute path (got "${explicit}")`,
      );
    }
    return explicit.replace(/\/+$/, "");
  }
  const home = Deno.env.get("HOME");
  if (!home) throw new SocketPathError("HOME is not set; set PORTREEVE_MCP_INSTALL_ROOT");
  return `${home}/.deno`;
}

function launcherScript(layout: InstallLayout, socket: string): string {
  const command = [layout.deno, "run", ...confinedFlags(socket, "bundle"), layout.bundle];
  const env = Object.entries(RUN_ENV);
  return [
    "#!/bin/sh",
    MARKER,
    `# ${LAUNCHER_NAME} ${SOFTWARE_VERSION}; \`deno task uninstall\` removes it.`,
    `# Runs the bundled bridge confined to one socket: ${socket.replaceAll("\n", " ")}`,
    ...env.map(([key, value]) => `${key}=${shellQuote(value)}`),
    `export ${env.map(([key]) => key).join(" ")}`,
    "# Without --socket or PORTREEVE_SOCKET the bridge uses the socket it is granted.",
    `if [ -z "\${PORTREEVE_SOCKET:-}" ]; then PORTREEVE_SOCKET=${shellQuote(socket)}; fi`,
    "export PORTREEVE_SOCKET",
    `exec ${shellJoin(command)} "$@"`,
    "",
  ].join("\n");
}

async function run(args: string[], what: string): Promise<string> {
  const out = await new Deno.Command(args[0], {
    args: args.slice(1),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new InstallError(`${what} failed: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return text;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

async function install(socketFlag: string | undefined): Promise<void> {
  const socket = locateSocket(socketFlag);
  confinedFlags(socket.path); // refuses what Deno cannot grant before anything is written
  const layout = installLayout(installRoot());
  const staging = `${layout.lib}.new-${Deno.pid}`;
  await Deno.mkdir(`${layout.root}/bin`, { recursive: true });
  await Deno.remove(staging, { recursive: true }).catch(() => {});
  try {
    await run([
      Deno.execPath(),
      "bundle",
      "--quiet",
      "--frozen",
      "--minify",
      "--platform=deno",
      "--code-splitting",
      "--outdir",
      staging,
      ENTRY,
    ], "bundling the bridge");
    await Deno.copyFile(Deno.execPath(), `${staging}/deno`);
    await Deno.chmod(`${staging}/deno`, 0o755);
    await Deno.remove(layout.lib, { recursive: true }).catch(() => {});
    await Deno.rename(staging, layout.lib);
  } finally {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
  }
  const fresh = `${layout.launcher}.new-${Deno.pid}`;
  await Deno.writeTextFile(fresh, launcherScript(layout, socket.path), { mode: 0o755 });
  await Deno.chmod(fresh, 0o755);
  await Deno.rename(fresh, layout.launcher);
  const version = (await run([layout.launcher, "--version"], "running the launcher")).trim();

  const onPath = (Deno.env.get("PATH") ?? "").split(":").includes(`${layout.root}/bin`);
  console.log(`Installed ${version}:`);
  console.log(`  ${layout.launcher}  launcher, confined to the socket ${socket.path}`);
  console.log(`  ${layout.bundle}  self-contained bundle (nothing fetched at run time)`);
  console.log(`  ${layout.deno}  private copy of ${Deno.execPath()}`);
  if (!onPath) {
    console.log(
      `\n${layout.root}/bin is not on your PATH; add it (e.g. in ~/.profile):\n` +
        `  export PATH=${shellQuote(`${layout.root}/bin`)}:"$PATH"`,
    );
  }
  console.log(
    `\nNext: ${shellQuote(layout.launcher)} config --host claude   (or codex, gemini, generic)`,
  );
}

async function uninstall(): Promise<void> {
  const layout = installLayout(installRoot());
  const removed: string[] = [];
  if (await exists(layout.launcher)) {
    const text = await Deno.readTextFile(layout.launcher);
    if (!text.split("\n").includes(MARKER)) {
      throw new InstallError(`${layout.launcher} was not written by this installer; left alone`);
    }
    await Deno.remove(layout.launcher);
    removed.push(layout.launcher);
  }
  if (await exists(layout.bundle)) {
    await Deno.remove(layout.lib, { recursive: true });
    removed.push(layout.lib);
  }
  console.log(
    removed.length === 0
      ? `Nothing to remove: no ${LAUNCHER_NAME} installation under ${layout.root}.`
      : `Removed:\n${removed.map((path) => `  ${path}`).join("\n")}`,
  );
}

const INSTALL_OPTIONS = {
  socket: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

async function main(): Promise<number> {
  const [mode, ...rest] = Deno.args;
  let values: { socket?: string; help?: boolean };
  try {
    values = parseOptions(rest, INSTALL_OPTIONS);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(error.message);
    console.error(USAGE.split("\n").slice(0, 2).join("\n"));
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  try {
    if (mode === "install") await install(values.socket);
    else if (mode === "uninstall" && values.socket === undefined) await uninstall();
    else {
      console.error(USAGE.split("\n").slice(0, 2).join("\n"));
      return 2;
    }
    return 0;
  } catch (error) {
    if (error instanceof SocketPathError || error instanceof RangeError) {
      console.error(`${LAUNCHER_NAME} ${mode}: ${error.message}`);
      return 2;
    }
    if (error instanceof InstallError || error instanceof Deno.errors.PermissionDenied) {
      console.error(`${LAUNCHER_NAME} ${mode}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

if (import.meta.main) Deno.exit(await main());
