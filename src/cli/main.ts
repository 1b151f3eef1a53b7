/** Argument parsing and dispatch. Usage errors exit 2 with one clear line on stderr. */
import { APPROVAL_MODES, PRODUCT, SOFTWARE_VERSION, TOOLSETS } from "../shared/options.ts";
import { SocketPathError } from "../shared/socket_location.ts";
import { type CommandIO, UsageError } from "./options.ts";
import { commandLine } from "../shared/hints.ts";
import { wrappedList } from "./host_list.ts";

const EXIT = { ok: 0, usage: 2 } as const;

/** The program's help; `hosts` are the profiles' ids (loaded only when help is asked for). */
export function programHelp(hosts: readonly string[]): string {
  const toolsets = TOOLSETS.join("|");
  const approvals = APPROVAL_MODES.join("|");
  return `${PRODUCT} ${SOFTWARE_VERSION} — MCP bridge to the PortReeve daemon

Usage:
  ${PRODUCT} serve  [--socket PATH] [--label NAME] [--toolset ${toolsets}]
                       [--log-level error|warn|info|debug] [--custody-ms MS]
                       [--approval ${approvals}] [--approval-ms MS] [--daemon-wait-ms MS]
  ${PRODUCT} config --host HOST [--portable] [--label NAME]
                       [--toolset ${toolsets}] [--approval ${approvals}]
                       [--socket PATH] [--json]
  ${PRODUCT} doctor [--socket PATH] [--label NAME] [--toolset ${toolsets}]
                       [--host HOST] [--approval ...] [--json]
  ${PRODUCT} setup  --host HOST [--remove] [--dry-run] [--socket PATH]
                       [--label NAME] [--toolset ...] [--approval ...] [--portable]
  ${PRODUCT} --version | --help | <command> --help

serve    speaks MCP over stdio (stdout carries frames only; logs are JSON lines on stderr)
config   prints the host configuration for this installation; never edits host files
doctor   checks the whole path from a host to the daemon and says what to fix; with
         --host, reads the entry that host has and runs it
setup    adds, updates or (--remove) takes out the host's entry; the only command that
         writes a host's files

Hosts:  ${wrappedList(hosts, ", ", "        ")}

Socket: --socket, else $PORTREEVE_SOCKET, else $PORTREEVE_HOME/portreeve.sock, else the
        platform default (\${XDG_STATE_HOME:-$HOME/.local/state}/portreeve/portreeve.sock;
        macOS: ~/Library/Application Support/Portreeve/portreeve.sock): absolute, no comma,
        a socket of yours or nothing yet, under folders only you (or root) can change.

Exit codes: 0 ok, 1 config cannot render for this installation (setup: not done), 2 usage
error; doctor: 3 daemon unavailable, 4 incompatible, 5 misconfigured, 6 no host entry.`;
}

export async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "serve": {
        const { runServe } = await import("./serve.ts");
        return await runServe(rest, stdio);
      }
      case "config": {
        const { runConfigCommand } = await import("./config.ts");
        return runConfigCommand(rest, stdio);
      }
      case "doctor": {
        const { runDoctor } = await import("./doctor.ts");
        return await runDoctor(rest, stdio);
      }
      case "setup": {
        const { runSetup } = await import("./setup.ts");
        return await runSetup(rest, stdio);
      }
      case "grant": {
        // For the launcher and the task runner only: plans doctor's and setup's grant.
        const { runGrant } = await import("./host/grant.ts");
        return await runGrant(rest, stdio);
      }
      case "--version":
      case "-V":
        stdio.stdout(`${PRODUCT} ${SOFTWARE_VERSION}\n`);
        return EXIT.ok;
      case "--help":
      case "-h":
      case "help": {
        const { HOST_IDS } = await import("../profiles/hosts.ts");
        stdio.stdout(programHelp(HOST_IDS) + "\n");
        return EXIT.ok;
      }
      case undefined:
        throw new UsageError(`missing command; see \`${commandLine(["--help"])}\``);
      default:
        throw new UsageError(`unknown command "${command}"; see \`${commandLine(["--help"])}\``);
    }
  } catch (error) {
    if (error instanceof UsageError || error instanceof SocketPathError) {
      stdio.stderr(`${PRODUCT}: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}

/** Writers for commands that print to a terminal (`serve` writes only its help here). */
const stdio: CommandIO = {
  stdout: (text: string) => writeAll(Deno.stdout, text),
  stderr: (text: string) => writeAll(Deno.stderr, text),
};

function writeAll(stream: { writeSync(p: Uint8Array): number }, text: string): void {
  const bytes = new TextEncoder().encode(text);
  let written = 0;
  while (written < bytes.length) written += stream.writeSync(bytes.subarray(written));
}
