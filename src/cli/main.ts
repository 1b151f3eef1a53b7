/** Argument parsing and dispatch. Usage errors exit 2 with one clear line on stderr. */
import { parseArgs } from "node:util";
import { PRODUCT, SOFTWARE_VERSION } from "../version.ts";
import { denoEnv, discoverSocket, rejectDirectory, SocketPathError } from "../daemon/discovery.ts";
import { TOOLSETS } from "../toolsets.ts";
import { LOG_LEVELS } from "../transport/logging.ts";
import { checkLabel, oneOf, UsageError } from "./options.ts";
import { APPROVAL_MODES } from "../approval_modes.ts";
import { commandLine } from "../hints.ts";

export const EXIT = { ok: 0, usage: 2 } as const;

export const HELP = `${PRODUCT} ${SOFTWARE_VERSION} — MCP bridge to the PortReeve daemon

Usage:
  ${PRODUCT} serve  [--socket PATH] [--label NAME] [--toolset read|coordinate|full]
                    [--log-level error|warn|info|debug] [--custody-ms MS]
                    [--approval required|auto|off] [--approval-ms MS]
  ${PRODUCT} config --host claude|codex|gemini|generic [--portable] [--label NAME]
                    [--toolset read|coordinate|full] [--approval required|auto|off]
                    [--socket PATH] [--json]
  ${PRODUCT} doctor [--socket PATH] [--label NAME] [--toolset read|coordinate|full]
                    [--host claude|codex|gemini|generic] [--approval ...] [--json]
  ${PRODUCT} --version | --help | <command> --help

serve    speaks MCP over stdio (stdout carries frames only; logs are JSON lines on stderr)
config   prints the host configuration for this installation; never edits host files
doctor   checks the whole path from a host to the daemon and says what to fix

Socket: --socket, else $PORTREEVE_SOCKET, else the platform default
        (\${XDG_STATE_HOME:-$HOME/.local/state}/portreeve/portreeve.sock; macOS:
        ~/Library/Application Support/Portreeve/portreeve.sock). Paths must be absolute
        socket files (not a directory, no comma).

Exit codes: 0 ok, 1 config cannot render for this installation, 2 usage error;
doctor: 3 daemon unavailable, 4 incompatible, 5 misconfigured.`;

/** `serve`'s options; `serve --help` lists every one (a test keeps them in step). */
export const SERVE_OPTIONS = {
  socket: { type: "string" },
  label: { type: "string" },
  toolset: { type: "string", default: "full" },
  "log-level": { type: "string", default: "info" },
  "custody-ms": { type: "string" },
  approval: { type: "string", default: "auto" },
  "approval-ms": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export const SERVE_HELP = `usage: ${PRODUCT} serve [options]

Speaks MCP over stdio for one agent host: stdin and stdout carry JSON-RPC frames only, logs
are JSON lines on stderr. A host starts it; run by hand it waits for frames on stdin.

  --socket PATH       daemon socket (default: $PORTREEVE_SOCKET, else the platform default)
  --label NAME        recorded by the daemon as the origin of every change (1-64 of A-Z a-z
                      0-9 . _ -)
  --toolset SET       read | coordinate | full (default full): which tools are registered
  --log-level LEVEL   error | warn | info | debug (default info)
  --custody-ms MS     how long credentials are held without an explicit extension
                      (1000-600000, default 600000 = 10 min; lower values are for drills)
  --approval MODE     how a person approves *_execute: auto (default) asks the user through
                      the host when it can (MCP elicitation); required refuses executes when
                      the host cannot ask; off never asks (the agent must ask the user)
  --approval-ms MS    how long a question waits for the user's answer (1000-300000, default
                      120000 = 2 min; never past the receipt's expiry)
  -h, --help          this help

Exit codes: 0 stopped normally (stdin closed, SIGINT or SIGTERM), 2 usage error.`;

export async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "serve":
        return await runServe(rest);
      case "config": {
        const { runConfigCommand } = await import("../profiles/mod.ts");
        return runConfigCommand(rest, stdio);
      }
      case "doctor": {
        const { runDoctor } = await import("../transport/doctor.ts");
        return await runDoctor(rest, stdio);
      }
      case "--version":
      case "-V":
        stdio.stdout(`${PRODUCT} ${SOFTWARE_VERSION}\n`);
        return EXIT.ok;
      case "--help":
      case "-h":
      case "help":
        stdio.stdout(HELP + "\n");
        return EXIT.ok;
      case undefined:
        throw new UsageError("missing command; try `portreeve-mcp --help`");
      default:
        throw new UsageError(`unknown command "${command}"; try \`portreeve-mcp --help\``);
    }
  } catch (error) {
    if (
      error instanceof UsageError || error instanceof SocketPathError || error instanceof RangeError
    ) {
      stdio.stderr(`${PRODUCT}: ${error.message}\n`);
      return EXIT.usage;
    }
    if (
      error instanceof TypeError && "code" in error &&
      String(error.code).startsWith("ERR_PARSE_ARGS")
    ) {
      stdio.stderr(`${PRODUCT}: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}

/** Writers for commands that print to a terminal (not `serve`, which owns stdout). */
export const stdio = {
  stdout: (text: string) => writeAll(Deno.stdout, text),
  stderr: (text: string) => writeAll(Deno.stderr, text),
};

function writeAll(stream: { writeSync(p: Uint8Array): number }, text: string): void {
  const bytes = new TextEncoder().encode(text);
  let written = 0;
  while (written < bytes.length) written += stream.writeSync(bytes.subarray(written));
}

async function runServe(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: SERVE_OPTIONS,
  });
  if (values.help) {
    stdio.stdout(SERVE_HELP + "\n");
    return EXIT.ok;
  }
  const toolset = oneOf(values.toolset, TOOLSETS, "--toolset");
  const logLevel = oneOf(values["log-level"], LOG_LEVELS, "--log-level");
  const label = values.label === undefined ? undefined : checkLabel(values.label);
  const socket = rejectDirectory(discoverSocket(values.socket, denoEnv));
  const custodyMs = values["custody-ms"] === undefined
    ? undefined
    : custodyWindow(values["custody-ms"]);
  const approval = oneOf(values.approval, APPROVAL_MODES, "--approval");
  const approvalMs = values["approval-ms"] === undefined
    ? undefined
    : approvalWait(values["approval-ms"]);
  if (Deno.stdin.isTerminal()) {
    // Run by hand in a terminal, a stdio server would otherwise look hung.
    stdio.stderr(
      `${PRODUCT} serve: waiting for an MCP host on stdin (this is a stdio server; an agent ` +
        `host starts it; \`${
          commandLine(["config", "--help"])
        }\` shows how). Press Ctrl-C to stop.\n`,
    );
  }
  const { serve } = await import("../transport/serve.ts");
  return await serve({ socket, label, toolset, logLevel, custodyMs, approval, approvalMs });
}

/** A person needs time to read; a receipt lasts 5 minutes, so longer waits are pointless. */
function approvalWait(raw: string): number {
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 1000 || ms > 300_000) {
    throw new UsageError(`--approval-ms must be an integer from 1000 to 300000 (got "${raw}")`);
  }
  return ms;
}

/** Default custody window; shorter than 10 minutes only makes sense for tests and drills. */
function custodyWindow(raw: string): number {
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 1000 || ms > 600_000) {
    throw new UsageError(`--custody-ms must be an integer from 1000 to 600000 (got "${raw}")`);
  }
  return ms;
}
