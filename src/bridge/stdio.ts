/**
 * The bridge on stdio, as `portreeve-mcp serve` runs it: logging, the credential scrubber on
 * every writer, the framed stdio transport with its flow control, and a bounded shutdown.
 * Startup makes no daemon request; the daemon is reached lazily on the first tool call, so
 * hosts get their handshake at once.
 */
import { serveStdio as serveSdkStdio } from "@modelcontextprotocol/server/stdio";
import { type ApprovalMode, DEFAULT_APPROVAL_MODE, type Toolset } from "../shared/options.ts";
import type { SocketLocation } from "../shared/socket_location.ts";
import { createBridge } from "./mod.ts";
import {
  configureLogging,
  flushLogs,
  logger,
  type LogLevelName,
  scrubLogLines,
} from "../shared/logging.ts";
import { scrubConsole } from "../transport/stdout_guard.ts";
import { CredentialFragments } from "../custody/fragments.ts";
import { FramedStdioTransport } from "../transport/stdio_transport.ts";
import { CallLimiter } from "../transport/call_limiter.ts";
import type { HostTreatments } from "../shared/host_treatment.ts";

export interface ServeOptions {
  socket: SocketLocation;
  label?: string;
  toolset: Toolset;
  logLevel: LogLevelName;
  custodyMs?: number;
  approval?: ApprovalMode;
  approvalMs?: number;
  /** How long one tool call may wait for the daemon (`--daemon-wait-ms`). */
  daemonWaitMs?: number;
  /** How the bridge treats each host, by the name it gives (from the host profiles). */
  hosts?: HostTreatments;
}

/** Hard bound on shutdown, so a wedged close can never keep a dead host's bridge alive. */
const SHUTDOWN_LIMIT_MS = 800;

export function serveStdio(options: ServeOptions): Promise<never> {
  configureLogging(options.logLevel);
  // One record of every credential this process is given, consulted by every writer: stdout
  // frames, log lines and stray console output alike.
  const fragments = new CredentialFragments();
  scrubLogLines((line) => fragments.scrub(line));
  scrubConsole((text) => fragments.scrub(text, "text"));
  const log = logger("serve");
  const { daemonWaitMs, ...rest } = options;
  const bridge = createBridge({
    ...rest,
    fragments,
    timing: daemonWaitMs === undefined ? undefined : { daemonWaitMs },
  });
  const { catalogue } = bridge;

  const shutdown = new AbortController();
  let finished: () => void;
  const done = new Promise<void>((resolve) => finished = resolve);
  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`stopping: ${reason}`);
    const hardStop = setTimeout(() => Deno.exit(0), SHUTDOWN_LIMIT_MS);
    shutdown.abort();
    await bridge.close();
    await handle.close().catch(() => {});
    await flushLogs();
    clearTimeout(hardStop);
    finished();
  };

  const transport = new FramedStdioTransport();
  transport.scrub = (json) => fragments.scrub(json);
  // A tool call too large to parse is a tool error, like every other refused call.
  transport.refuseCall = bridge.refused;
  // A stdout backlog holds stdin and new calls; too many pending calls hold stdin: both
  // bound the process's memory.
  const limiter = new CallLimiter({ output: transport.outputGate });
  const handle = serveSdkStdio(
    ({ era }) => bridge.server(shutdown.signal, era, limiter),
    {
      legacy: "serve",
      transport,
      onerror: (error) => log.warn(`transport: ${error.message}`),
    },
  );
  transport.onEnd = () => stop("stdin closed");
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => stop(signal));
  }
  log.debug("serving {tools} tools ({toolset}, approval {approval}) for socket {socket}", {
    tools: catalogue.size,
    toolset: options.toolset,
    approval: options.approval ?? DEFAULT_APPROVAL_MODE,
    socket: options.socket.path,
    runId: bridge.runId,
  });
  return done.then(() => Deno.exit(0));
}
