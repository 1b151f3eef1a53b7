/**
 * `portreeve-mcp config`: parses argv, discovers the socket and the installation, has the
 * profiles render, prints. Usage errors exit 2, other failures 1. Errors always go to stderr as
 * one line; with `--json` the same error is also printed on stdout as
 * `{"version":1,"error":{"code","message"}}` so scripts need only read stdout.
 */
import { type EnvReader, locateSocket, SocketPathError } from "../shared/socket_location.ts";
import type { Disk } from "../shared/socket_site.ts";
import { ConfigError, formatHuman, HOST_IDS, renderConfig, TOOLSETS } from "../profiles/mod.ts";
import { detectInstallation, type Installation } from "../shared/installation.ts";
import { APPROVAL_MODES, DEFAULT_APPROVAL_MODE } from "../shared/options.ts";
import {
  commandLine,
  type ReaderForm,
  readerForm,
  taskStep,
  unstablePathWarnings,
} from "../shared/hints.ts";
import { type CommandIO, parseOptions, UsageError } from "./options.ts";
import { startDaemonHint } from "./daemon_hint.ts";
import { wrappedList } from "./host_list.ts";

/** Seams for tests; each defaults to the real process. */
export interface ConfigDeps {
  installation?: Installation;
  env?: EnvReader;
  os?: string;
  /** Whether this process may use the socket; only consulted for exact compiled output. */
  socketGranted?: (path: string) => boolean;
  /** What the socket checks see on disk; defaults to the real disk. */
  disk?: Disk;
  /** Whether a socket is there to connect to: true, false, or null when it cannot be told. */
  listening?: (path: string) => boolean | null;
}

export const CONFIG_USAGE = `usage: portreeve-mcp config --host HOST [--portable] [--label NAME] ` +
  `[--toolset ${TOOLSETS.join("|")}] [--approval ${
    APPROVAL_MODES.join("|")
  }] [--socket PATH] [--json]`;

/** `config`'s options; `config --help` lists every one (a test keeps them in step). */
export const CONFIG_OPTIONS = {
  host: { type: "string" },
  portable: { type: "boolean" },
  label: { type: "string" },
  toolset: { type: "string" },
  approval: { type: "string" },
  socket: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export const CONFIG_HELP = `${CONFIG_USAGE}

Prints the configuration of an agent host for this installation and the command that
registers it. Reads and writes no host file.

  --host HOST       the host (required), one of
                    ${wrappedList(HOST_IDS, ", ", " ".repeat(20))}
  --portable        print the bare \`portreeve-mcp\` command (for users who keep it on PATH)
                    instead of this installation's absolute command
  --label NAME      passed to serve --label (1-64 of A-Z a-z 0-9 . _ -)
  --toolset SET     passed to serve --toolset: ${TOOLSETS.join(" | ")} (default full)
  --approval MODE   passed to serve --approval: ${APPROVAL_MODES.join(" | ")} (default
                    ${DEFAULT_APPROVAL_MODE}, which is not printed); the notes say what a
                    person gets on this host
  --socket PATH     the daemon socket to grant and pin (default: $PORTREEVE_SOCKET, else
                    $PORTREEVE_HOME/portreeve.sock, else the platform default)
  --json            one JSON line {version, config} (or {version, error}) on stdout
  -h, --help        this help

Exit codes: 0 printed, 1 cannot render for this installation (e.g. a socket outside a fixed
grant), 2 usage error.`;

export function runConfigCommand(args: string[], io: CommandIO, deps: ConfigDeps = {}): number {
  const json = args.includes("--json");
  const installation = deps.installation ?? detectInstallation();
  const form = readerForm(installation);
  try {
    const options = parseConfigOptions(args, form);
    if (options.help) {
      io.stdout(`${CONFIG_HELP}\n`);
      return 0;
    }
    if (options.host === undefined) {
      throw new ConfigError("usage", `--host is required (one of ${HOST_IDS.join(", ")})`);
    }
    if (options.socket !== undefined && !options.socket.startsWith("/")) {
      throw new ConfigError("usage", `--socket must be an absolute path (got "${options.socket}")`);
    }
    const socket = discover(options.socket, deps);
    // The same entry again, for the socket given after --socket.
    const again = [
      "--host",
      options.host,
      ...optionWords(options),
      "--socket",
      socket.path,
    ];
    const result = renderConfig({
      host: options.host,
      portable: options.portable ?? false,
      label: options.label,
      toolset: options.toolset,
      approval: options.approval,
      socket,
      rerun: installation.kind === "compiled"
        ? taskStep("compile", ["--socket", socket.path], form)
        : `\`${commandLine(["config", ...again], form)}\``,
      // setup finds the socket as config did, so the same entry without pinning one. A
      // compiled binary's grant (the socket alone) was fixed when built: it cannot run setup.
      setup: installation.kind === "compiled" ? undefined : commandLine([
        "setup",
        "--host",
        options.host,
        ...optionWords(options),
        ...(options.portable ? ["--portable"] : []),
        ...(options.socket === undefined ? [] : ["--socket", options.socket]),
      ], form),
      warnings: unstablePathWarnings(installation, form),
    }, installation);
    if (result.mode === "exact" && installation.kind !== "script") {
      const granted = deps.socketGranted ?? processMayUse;
      if (!granted(socket.path)) {
        // The printed command would start a bridge its own permissions forbid to connect.
        throw new ConfigError(
          "socket",
          installation.kind === "compiled"
            ? `this binary was compiled for a different socket than ${socket.path}; build one ` +
              `for it with ${taskStep("compile", ["--socket", socket.path], form)}, or use ` +
              "--portable"
            : `this bridge was started without a grant for ${socket.path}; run config through ` +
              `its launcher, which grants the socket it is given: \`${
                commandLine(["config", ...again], form)
              }\` (or use --portable)`,
        );
      }
    }
    for (const note of result.notes) {
      if (note.startsWith("Warning:")) io.stderr(`portreeve-mcp config: ${note}\n`);
    }
    if ((deps.listening ?? socketThere)(socket.path) === false) {
      // Not an error: the daemon may start later. But a person pasting the entry now would
      // see the host fail to connect, so say it here.
      io.stderr(
        `portreeve-mcp config: Warning: nothing listens on ${socket.path} yet (no socket ` +
          `there), so the host will not connect until a daemon does. ${startDaemonHint(form)}\n`,
      );
    }
    io.stdout(json ? `${JSON.stringify({ version: 1, config: result })}\n` : formatHuman(result));
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr(`portreeve-mcp config: ${error.message}\n`);
    if (json) {
      const body = { version: 1, error: { code: error.code, message: error.message } };
      io.stdout(`${JSON.stringify(body)}\n`);
    }
    return error.code === "usage" ? 2 : 1;
  }
}

/** The options that shape the entry, as given, so a printed rerun makes the same entry. */
function optionWords(options: ConfigOptions): string[] {
  const words: string[] = [];
  if (options.label !== undefined) words.push("--label", options.label);
  if (options.toolset !== undefined) words.push("--toolset", options.toolset);
  if (options.approval !== undefined) words.push("--approval", options.approval);
  return words;
}

type ConfigOptions = ReturnType<typeof parseConfigOptions>;

function parseConfigOptions(args: string[], form: ReaderForm) {
  try {
    return parseOptions(args, CONFIG_OPTIONS, commandLine(["config", "--help"], form));
  } catch (error) {
    if (error instanceof UsageError) throw new ConfigError("usage", error.message);
    throw error;
  }
}

function discover(flag: string | undefined, deps: ConfigDeps) {
  try {
    return locateSocket(flag, deps.env, deps.os, deps.disk);
  } catch (error) {
    if (error instanceof SocketPathError) {
      throw new ConfigError(flag === undefined ? "socket" : "usage", error.message);
    }
    throw error;
  }
}

/** A socket file at `path`; null when this process may not look. */
function socketThere(path: string): boolean | null {
  try {
    return Deno.lstatSync(path).isSocket;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    return null;
  }
}

function processMayUse(path: string): boolean {
  return Deno.permissions.querySync({ name: "read", path }).state === "granted" &&
    Deno.permissions.querySync({ name: "write", path }).state === "granted";
}
