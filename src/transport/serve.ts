/**
 * `portreeve-mcp serve`: the stdio MCP server. Startup makes no daemon request; the daemon
 * is reached lazily on the first tool call, so hosts get their handshake at once.
 */
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { Catalogue } from "../catalogue/catalogue.ts";
import { ALL_TOOLS } from "../catalogue/index.ts";
import type { Toolset } from "../catalogue/define.ts";
import type { Services } from "../catalogue/context.ts";
import { DaemonClient } from "../daemon/client.ts";
import type { SocketLocation } from "../daemon/discovery.ts";
import { BridgeError, Codes } from "../daemon/errors.ts";
import { configureLogging, type LogLevelName, logger } from "./logging.ts";
import { createServer } from "./server.ts";
import { FramedStdioTransport } from "./stdio_transport.ts";
import { grantProblem } from "./grant.ts";

export interface ServeOptions {
  socket: SocketLocation;
  label?: string;
  toolset: Toolset;
  logLevel: LogLevelName;
}

/** Hard bound on shutdown, so a wedged close can never keep a dead host's bridge alive. */
const SHUTDOWN_LIMIT_MS = 800;

export function serve(options: ServeOptions): Promise<never> {
  configureLogging(options.logLevel);
  const log = logger("serve");
  const runId = crypto.randomUUID();
  const misconfiguration = grantProblem(options.socket.path);
  if (misconfiguration) log.error("{message}", { message: misconfiguration });

  const daemon = new DaemonClient({
    socketPath: options.socket.path,
    runId,
    label: options.label,
    preflight: () =>
      misconfiguration
        ? new BridgeError(Codes.misconfigured, misconfiguration, false, { socketPath: options.socket.path })
        : undefined,
  });
  const catalogue = new Catalogue(ALL_TOOLS, options.toolset);
  const services: Services = {
    daemon,
    bridge: {
      runId,
      label: options.label ?? null,
      socketPath: options.socket.path,
      socketSource: options.socket.source,
      toolset: options.toolset,
      requiredCapabilities: catalogue.requiredCapabilities(),
      misconfiguration,
    },
  };

  const shutdown = new AbortController();
  let finished: () => void;
  const done = new Promise<void>((resolve) => finished = resolve);
  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    log.info("stopping: {reason}", { reason });
    const hardStop = setTimeout(() => Deno.exit(0), SHUTDOWN_LIMIT_MS);
    shutdown.abort();
    daemon.close();
    await handle.close().catch(() => {});
    clearTimeout(hardStop);
    finished();
  };

  const transport = new FramedStdioTransport();
  const handle = serveStdio(() => createServer(catalogue, services, shutdown.signal), {
    legacy: "serve",
    transport,
    onerror: (error) => log.warn("transport: {message}", { message: error.message }),
  });
  transport.onEnd = () => stop("stdin closed");
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => stop(signal));
  }
  log.info("serving {tools} tools ({toolset}) for socket {socket}", {
    tools: catalogue.tools.length,
    toolset: options.toolset,
    socket: options.socket.path,
    runId,
  });
  return done.then(() => Deno.exit(0));
}
