/** `portreeve-mcp serve`: its options and their checks; the bridge itself is in src/bridge/. */
import {
  APPROVAL_MODES,
  DEFAULT_APPROVAL_MODE,
  DEFAULT_DAEMON_WAIT_MS,
  PRODUCT,
  TOOLSETS,
} from "../shared/options.ts";
import { locateSocket } from "../shared/socket_location.ts";
import { commandLine } from "../shared/hints.ts";
import { LOG_LEVELS } from "../shared/logging.ts";
import { checkLabel, type CommandIO, oneOf, parseOptions, UsageError } from "./options.ts";

/** `serve`'s options; `serve --help` lists every one (a test keeps them in step). */
export const SERVE_OPTIONS = {
  socket: { type: "string" },
  label: { type: "string" },
  toolset: { type: "string", default: "full" },
  "log-level": { type: "string", default: "info" },
  "custody-ms": { type: "string" },
  approval: { type: "string", default: DEFAULT_APPROVAL_MODE },
  "approval-ms": { type: "string" },
  "daemon-wait-ms": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export const SERVE_HELP = `usage: ${PRODUCT} serve [options]

Speaks MCP over stdio for one agent host: stdin and stdout carry JSON-RPC frames only, logs
are JSON lines on stderr. A host starts it; run by hand it waits for frames on stdin.

  --socket PATH       daemon socket (default: $PORTREEVE_SOCKET, else
                      $PORTREEVE_HOME/portreeve.sock, else the platform default)
  --label NAME        recorded by the daemon as the origin of every change (1-64 of A-Z a-z
                      0-9 . _ -)
  --toolset SET       read | coordinate | full (default full): which tools are registered
  --log-level LEVEL   error | warn | info | debug (default info)
  --custody-ms MS     how long credentials are held without an explicit extension
                      (1000-600000, default 600000 = 10 min; lower values are for drills)
  --approval MODE     how a person approves each change: required (default) asks the user
                      through the host (MCP elicitation) and refuses the change when the host
                      cannot ask; auto lets the host's own tool prompt stand in where the host
                      cannot ask; off never asks (trusted scripts)
  --approval-ms MS    how long a question waits for the user's answer (1000-300000, default
                      120000 = 2 min; never past the receipt's expiry)
  --daemon-wait-ms MS how long one tool call may wait for the daemon in all (1000-3600000,
                      default ${DEFAULT_DAEMON_WAIT_MS} = ${
  DEFAULT_DAEMON_WAIT_MS / 60_000
} min); a busy daemon is slow, not gone (it serves
                      one request at a time), and the host's cancel ends a wait sooner
  -h, --help          this help

Exit codes: 0 stopped normally (stdin closed, SIGINT or SIGTERM), 2 usage error.`;

export async function runServe(args: string[], io: CommandIO): Promise<number> {
  const values = parseOptions(args, SERVE_OPTIONS, commandLine(["serve", "--help"]));
  if (values.help) {
    io.stdout(SERVE_HELP + "\n");
    return 0;
  }
  const toolset = oneOf(values.toolset, TOOLSETS, "--toolset");
  const logLevel = oneOf(values["log-level"], LOG_LEVELS, "--log-level");
  const label = values.label === undefined ? undefined : checkLabel(values.label);
  const socket = locateSocket(values.socket);
  const custodyMs = values["custody-ms"] === undefined
    ? undefined
    : milliseconds(values["custody-ms"], "--custody-ms", CUSTODY_MS);
  const approval = oneOf(values.approval, APPROVAL_MODES, "--approval");
  const approvalMs = values["approval-ms"] === undefined
    ? undefined
    : milliseconds(values["approval-ms"], "--approval-ms", APPROVAL_MS);
  const daemonWaitMs = values["daemon-wait-ms"] === undefined
    ? undefined
    : milliseconds(values["daemon-wait-ms"], "--daemon-wait-ms", DAEMON_WAIT_MS);
  if (Deno.stdin.isTerminal()) {
    // Run by hand in a terminal, a stdio server would otherwise look hung.
    io.stderr(
      `${PRODUCT} serve: waiting for an MCP host on stdin (this is a stdio server; an agent ` +
        `host starts it; \`${
          commandLine(["config", "--help"])
        }\` shows how). Press Ctrl-C to stop.\n`,
    );
  }
  const [{ serveStdio }, { hostTreatments }] = await Promise.all([
    import("../bridge/stdio.ts"),
    import("../profiles/hosts.ts"),
  ]);
  return await serveStdio({
    socket,
    label,
    toolset,
    logLevel,
    custodyMs,
    approval,
    approvalMs,
    daemonWaitMs,
    hosts: hostTreatments(),
  });
}

/**
 * Bounds of the millisecond flags. Custody below 10 minutes only makes sense for tests and
 * drills; a person needs time to read, and a receipt lasts 5 minutes, so longer approval
 * waits are pointless.
 */
const CUSTODY_MS = { min: 1000, max: 600_000 } as const;
const APPROVAL_MS = { min: 1000, max: 300_000 } as const;
/** Below a minute only for drills; an hour is longer than any host waits for one call. */
const DAEMON_WAIT_MS = { min: 1000, max: 3_600_000 } as const;

function milliseconds(raw: string, flag: string, { min, max }: { min: number; max: number }) {
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < min || ms > max) {
    throw new UsageError(`${flag} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return ms;
}
