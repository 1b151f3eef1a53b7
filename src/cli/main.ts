/** Argument parsing and dispatch. Usage errors exit 2 with one clear line on stderr. */
import { parseArgs } from "node:util";
import { PRODUCT, SOFTWARE_VERSION } from "../version.ts";
import { denoEnv, discoverSocket, SocketPathError } from "../daemon/discovery.ts";
import { TOOLSETS } from "../toolsets.ts";
import { LOG_LEVELS } from "../transport/logging.ts";
import { checkLabel, oneOf, UsageError } from "./options.ts";

export const EXIT = { ok: 0, usage: 2 } as const;

export const HELP = `${PRODUCT} ${SOFTWARE_VERSION} — MCP bridge to the PortReeve daemon

Usage:
  ${PRODUCT} serve  [--socket PATH] [--label NAME] [--toolset read|coordinate|full]
                    [--log-level error|warn|info|debug] [--custody-ms MS]
  ${PRODUCT} config --host claude|codex|gemini|generic [--portable] [--label NAME]
                    [--toolset read|coordinate|full] [--socket PATH] [--json]
  ${PRODUCT} doctor [--socket PATH] [--label NAME] [--toolset ...] [--host claude|codex|gemini|generic]
  ${PRODUCT} --version | --help | <command> --help

serve    speaks MCP over stdio (stdout carries frames only; logs are JSON lines on stderr)
config   prints the host configuration for this installation; never edits host files
doctor   checks the whole path from a host to the daemon and says what to fix

Socket: --socket, else $PORTREEVE_SOCKET, else the platform default
        (\${XDG_STATE_HOME:-$HOME/.local/state}/portreeve/portreeve.sock; macOS:
        ~/Library/Application Support/Portreeve/portreeve.sock). Paths must be absolute.

--custody-ms  how long credentials are held without an explicit extension
              (default 600000 = 10 min; lower values are for tests and drills).

Exit codes: 0 ok, 2 usage error; doctor: 3 daemon unavailable, 4 incompatible, 5 misconfigured.`;

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
    options: {
      socket: { type: "string" },
      label: { type: "string" },
      toolset: { type: "string", default: "full" },
      "log-level": { type: "string", default: "info" },
      "custody-ms": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    stdio.stdout(HELP + "\n");
    return EXIT.ok;
  }
  const toolset = oneOf(values.toolset, TOOLSETS, "--toolset");
  const logLevel = oneOf(values["log-level"], LOG_LEVELS, "--log-level");
  const label = values.label === undefined ? undefined : checkLabel(values.label);
  const socket = discoverSocket(values.socket, denoEnv);
  const custodyMs = values["custody-ms"] === undefined
    ? undefined
    : custodyWindow(values["custody-ms"]);
  const { serve } = await import("../transport/serve.ts");
  return await serve({ socket, label, toolset, logLevel, custodyMs });
}

/** Default custody window; shorter than 10 minutes only makes sense for tests and drills. */
function custodyWindow(raw: string): number {
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 1000 || ms > 600_000) {
    throw new UsageError(`--custody-ms must be an integer from 1000 to 600000 (got "${raw}")`);
  }
  return ms;
}
