/**
 * The bridge factory: wires the catalogue, the daemon client, custody with its renewers, the
 * memory of settled calls and the facts diagnostics report behind the MCP server of
 * src/transport/. Used by `serve` (through ./stdio.ts) and `doctor`, so both run exactly the
 * same server. The services load on the first tools/call: a handshake and tools/list need
 * none of them, so hosts get their answer sooner.
 */
import type { CallToolResult, Server } from "@modelcontextprotocol/server";
import { Catalogue } from "../catalogue/catalogue.ts";
import { failure } from "../results/result.ts";
import type { Services } from "../catalogue/context.ts";
import type { SocketLocation } from "../shared/socket_location.ts";
import { CallLimiter } from "../transport/call_limiter.ts";
import {
  CALL_TIMING,
  type CallTiming,
  createServer,
  type Era,
  type ServedTools,
} from "../transport/server.ts";
import { SERVER_INSTRUCTIONS } from "../catalogue/instructions.ts";
import type { CredentialFragments } from "../custody/fragments.ts";
import {
  type ApprovalMode,
  DEFAULT_APPROVAL_MODE,
  DEFAULT_APPROVAL_MS,
  type Toolset,
} from "../shared/options.ts";
import { grantProblem } from "../shared/hints.ts";
import type { BridgeError } from "../shared/errors.ts";
import { logger } from "../shared/logging.ts";
import { type HostTreatment, type HostTreatments, treatmentFor } from "../shared/host_treatment.ts";
import { SMALLEST_RESULT_BYTES } from "../results/pagination.ts";

interface BridgeSetup {
  socket: SocketLocation;
  label?: string;
  toolset: Toolset;
  /**
   * How long a call may wait for the daemon, and how often a waiting host hears of it (`serve
   * --daemon-wait-ms`; 10 minutes and 5 s when unset); tests pass their own timers.
   */
  timing?: Partial<CallTiming>;
  /** Default custody window (10 minutes when unset). */
  custodyMs?: number;
  /**
   * The process's record of credential fragments: custody fills it, and every writer of the
   * process scrubs with it, so it is made first and handed to both.
   */
  fragments: CredentialFragments;
  /** Whether executes ask the person through the host (`auto` when unset). */
  approval?: ApprovalMode;
  /** How long a question waits for the person (2 minutes when unset). */
  approvalMs?: number;
  /**
   * How the bridge treats each host (what it shows its model whole, whether its errors are
   * flagged), by the name it gives (`serve` builds them from the host profiles); unset: every
   * host gets the smallest known limit and flagged errors.
   */
  hosts?: HostTreatments;
}

export interface Bridge {
  catalogue: Catalogue;
  runId: string;
  /** The services, built on first use and shared by every call after. */
  services(): Promise<Services>;
  /**
   * The tool result for a call refused before it ran (too busy, too large to parse), marked
   * the way the host that named itself `client` gets its errors.
   */
  refused(error: BridgeError, client: string | undefined): CallToolResult;
  /** A new MCP server for one connection, serving this bridge's catalogue. */
  server(shutdown: AbortSignal, era?: Era, limiter?: CallLimiter): Server;
  /** Stops renewals, erases every credential and drops daemon connections. */
  close(): Promise<void>;
}

/** A bridge built without the host profiles treats every host as one of no known name. */
const UNKNOWN_HOST: HostTreatment = {
  resultLimitBytes: SMALLEST_RESULT_BYTES,
  flagsToolErrors: true,
  answerWidget: "unknown",
};

export function createBridge(setup: BridgeSetup): Bridge {
  const runId = crypto.randomUUID();
  const catalogue = new Catalogue(setup.toolset);
  catalogue.onBug = (tool, error) =>
    logger("bridge").error("bug: {tool} failed unexpectedly: {stack}", {
      tool,
      stack: error instanceof Error
        ? (error.stack ?? `${error.name}: ${error.message}`)
        : String(error),
    });
  catalogue.onDaemonError = (tool, error) =>
    logger("bridge").warn("the daemon failed on {tool}: {code} {message}", {
      tool,
      code: error.details.daemonCode ?? `HTTP ${error.details.status}`,
      message: error.message,
    });
  const misconfiguration = grantProblem(setup.socket.path);
  if (misconfiguration) logger("bridge").error(misconfiguration);
  const hosts = setup.hosts ?? { byClient: {}, fallback: UNKNOWN_HOST };
  const refused = (error: BridgeError, client: string | undefined) => {
    const { flagsToolErrors, host } = treatmentFor(hosts, client);
    return failure(error, { flagged: flagsToolErrors, host });
  };
  let built: Promise<Services> | undefined;
  const services = () => built ??= build(setup, catalogue, runId, misconfiguration);
  const served: ServedTools = {
    size: catalogue.size,
    toolset: catalogue.toolset,
    instructions: SERVER_INSTRUCTIONS,
    listing: () => catalogue.listing(),
    has: (name) => catalogue.has(name),
    call: async (name, args, { client, ...call }) => {
      const { resultLimitBytes, resultShownAs, flagsToolErrors, host, answerWidget } = treatmentFor(
        hosts,
        client,
      );
      return catalogue.call(name, args, {
        ...await services(),
        ...call,
        resultLimitBytes,
        resultShownAs,
        flagsToolErrors,
        hostProfile: host,
        answerWidget,
      });
    },
    refused,
  };
  return {
    catalogue,
    runId,
    services,
    refused,
    server: (shutdown, era = "legacy", limiter = new CallLimiter()) =>
      createServer(served, shutdown, era, limiter, { ...CALL_TIMING, ...setup.timing }),
    async close() {
      if (!built) return;
      const services = await built;
      await services.custody.close();
      services.daemon.close();
    },
  };
}

async function build(
  setup: BridgeSetup,
  catalogue: Catalogue,
  runId: string,
  misconfiguration: string | undefined,
): Promise<Services> {
  const [
    { DaemonClient },
    { Custody },
    { Memory },
    { daemonRenewers },
    { notGranted },
    { ReceiptBook },
    { ApprovalGate },
    { Approvals },
  ] = await Promise.all([
    import("../daemon/client.ts"),
    import("../custody/mod.ts"),
    import("../catalogue/memory.ts"),
    import("../catalogue/renewers.ts"),
    import("../daemon/errors.ts"),
    import("../catalogue/receipt_book.ts"),
    import("../daemon/gate.ts"),
    import("../catalogue/approval.ts"),
  ]);
  const log = logger("bridge");
  // One gate: the client admits through it, and only these approvals hold its minter.
  const gate = new ApprovalGate();
  const daemon = new DaemonClient({
    socketPath: setup.socket.path,
    runId,
    label: setup.label,
    // The log line (for a person) says how to fix it; the agent is told only what it is.
    preflight: () => misconfiguration ? notGranted(setup.socket.path) : undefined,
    gate,
    // Ids and codes only: what a change answered after its call gave up left behind, and what
    // became of it. A give-back that failed is a warning: something may stay held until it
    // expires.
    onLateAnswer: (event) => {
      if (event.outcome === "failed") log.warn("late answer {route}: {outcome}", { ...event });
      else log.info("late answer {route}: {outcome}", { ...event });
    },
  });
  const custody = new Custody({
    renewers: daemonRenewers(daemon),
    defaultCustodyMs: setup.custodyMs,
    fragments: setup.fragments,
    daemonDelayMs: () => daemon.observedDelayMs(),
    // Ids and codes only: custody events never carry secrets or handles. Trouble renewing
    // (late, failed, lapsed) is a warning: a person may want to raise the daemon's lease TTL.
    onEvent: (event) => {
      const trouble = event.type === "renewal-late" || event.type === "renewal-failed" ||
        (event.type === "erased" && event.reason !== "settled" &&
          event.reason !== "custody-expired");
      if (trouble) log.warn("custody {type}", { ...event });
      else log.debug("custody {type}", { ...event });
    },
  });
  return {
    daemon,
    custody,
    memory: new Memory(),
    receipts: new ReceiptBook(),
    approvals: new Approvals(gate.takeMinter()),
    bridge: {
      runId,
      label: setup.label ?? null,
      socketPath: setup.socket.path,
      socketSource: setup.socket.source,
      toolset: setup.toolset,
      requiredCapabilities: catalogue.requiredCapabilities(),
      misconfiguration,
      approval: setup.approval ?? DEFAULT_APPROVAL_MODE,
      approvalMs: setup.approvalMs ?? DEFAULT_APPROVAL_MS,
    },
  };
}
