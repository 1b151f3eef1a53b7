/**
 * The bridge on stdio, as `portreeve-mcp serve` runs it: logging, the credential scrubber on
 * every writer, the framed stdio transport with its flow control, and a bounded shutdown.
 * Startup makes no daemon request; the daemon is reached lazily on the first tool call, so
 * hosts get their handshake at once.
 */
import { serveStdio as serveSdkStdio } from "@modelcontextprotocol/server/stdio";
import { type ApprovalMode, DEFAULT_APPROVAL_MODE, type Toolset } from "../shared/options.ts";
import type { SocketLocation } from "../shared/socket_location.ts";
import { type Bridge, createBridge } from "./mod.ts";
import { configureLogging, flushLogs, logger, type LogLevelName } from "../shared/logging.ts";
import { installStdoutGuard } from "../transport/stdout_guard.ts";
import { CredentialFragments } from "../custody/fragments.ts";
import { FramedStdioTransport, type StdioPorts } from "../transport/stdio_transport.ts";
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

/** Where `serve` reads and writes: the process's own stdio, or stand-ins in a test. */
export interface ServeIo extends StdioPorts {
  /** Writes one line's bytes to stderr, whole. */
  stderr(bytes: Uint8Array): void;
}

/** Hard bound on shutdown, so a wedged close can never keep a dead host's bridge alive. */
const SHUTDOWN_LIMIT_MS = 800;

/** `serve` running: its bridge and transport, and how it stops. */
export interface Serving {
  bridge: Bridge;
  transport: FramedStdioTransport;
  /** Erases every credential, closes the connection and flushes the log; once. */
  stop(reason: string): Promise<void>;
  /** Resolves once stopped (stdin closed, stdout broke, or `stop`). */
  done: Promise<void>;
}

/**
 * The bridge on `io`, with its guards built in: one record of every credential this process is
 * given, made before the bridge that fills it, and every writer built around its scrubber —
 * log lines, console output and stdout frames alike — with a call refused unparsed answered as
 * the bridge answers its host. `onStopping` is told when stopping begins.
 */
export function startServing(
  options: ServeOptions,
  io: ServeIo,
  onStopping: () => void = () => {},
): Serving {
  const fragments = new CredentialFragments();
  configureLogging(options.logLevel, { scrub: (line) => fragments.scrub(line), write: io.stderr });
  installStdoutGuard({ scrub: (text) => fragments.scrub(text, "text"), write: io.stderr });
  const log = logger("serve");
  const { daemonWaitMs, ...rest } = options;
  const bridge = createBridge({
    ...rest,
    fragments,
    timing: daemonWaitMs === undefined ? undefined : { daemonWaitMs },
  });
  const transport = new FramedStdioTransport({
    scrub: (json) => fragments.scrub(json),
    // A tool call too large to parse is a tool error, like every other refused call.
    refuseCall: bridge.refused,
  }, io);

  const shutdown = new AbortController();
  const { promise: done, resolve: finished } = Promise.withResolvers<void>();
  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return await done;
    stopping = true;
    onStopping();
    log.info(`stopping: ${reason}`);
    shutdown.abort();
    await bridge.close();
    await handle.close().catch(() => {});
    await flushLogs();
    finished();
  };

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
  log.debug("serving {tools} tools ({toolset}, approval {approval}) for socket {socket}", {
    tools: bridge.catalogue.size,
    toolset: options.toolset,
    approval: options.approval ?? DEFAULT_APPROVAL_MODE,
    socket: options.socket.path,
    runId: bridge.runId,
  });
  return { bridge, transport, stop, done };
}

export function serveStdio(options: ServeOptions): Promise<never> {
  const io: ServeIo = {
    input: Deno.stdin,
    output: Deno.stdout,
    stderr: (bytes) => {
      let written = 0;
      while (written < bytes.length) written += Deno.stderr.writeSync(bytes.subarray(written));
    },
  };
  const serving = startServing(options, io, () => {
    setTimeout(() => Deno.exit(0), SHUTDOWN_LIMIT_MS);
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => serving.stop(signal));
  }
  return serving.done.then(() => Deno.exit(0));
}
