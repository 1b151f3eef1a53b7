/**
 * `portreeve-mcp doctor`: runs, inside this same confined process, the server a host would
 * get from this installation (the bridge `serve` builds) behind an in-memory MCP client; with
 * `--host NAME`, then reads the entry that host really has and runs it (doctor_entry.ts); and
 * prints a checklist with one verdict and the next steps (doctor_report.ts). Without `--host`
 * it needs no permission beyond `serve`'s; with it, exactly the grant host/grant.ts plans.
 */
import { Client, InMemoryTransport, type JSONRPCMessage } from "@modelcontextprotocol/client";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import {
  APPROVAL_MODES,
  type ApprovalMode,
  DEFAULT_APPROVAL_MODE,
  PRODUCT,
  SOFTWARE_VERSION,
  type Toolset,
  TOOLSETS,
} from "../shared/options.ts";
import { type Check, DOCTOR_EXIT, Report } from "./doctor_report.ts";
import type { OwnDaemon } from "./doctor_entry.ts";
import { hostCommand } from "./doctor_host.ts";
import { hostContext } from "./host/context.ts";
import type { PlaceContext } from "../profiles/entry_places.ts";
import { approvalReport } from "./doctor_approval.ts";
import { locateSocket, type SocketLocation } from "../shared/socket_location.ts";
import { checkLabel, type CommandIO, oneOf, parseOptions, UsageError } from "./options.ts";
import type { EntryOptions } from "./doctor_entry.ts";
import { findHost, HOST_IDS, unknownHostMessage } from "../profiles/mod.ts";
import { createBridge } from "../bridge/mod.ts";
import { commandLine, grantProblem, readerForm, unstablePathWarnings } from "../shared/hints.ts";
import { startDaemonStep } from "./daemon_hint.ts";
import { wrappedList } from "./host_list.ts";
import { detectInstallation } from "../shared/installation.ts";
import { configureLogging } from "../shared/logging.ts";
import { CredentialFragments } from "../custody/fragments.ts";
import { envelopeOf } from "../results/result.ts";
import { isObject, type Json } from "../shared/json.ts";
import { z } from "zod";

export { DOCTOR_EXIT } from "./doctor_report.ts";

/** `doctor`'s options; `doctor --help` lists every one (a test keeps them in step). */
export const DOCTOR_OPTIONS = {
  socket: { type: "string" },
  label: { type: "string" },
  toolset: { type: "string" },
  host: { type: "string", default: "generic" },
  approval: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export const DOCTOR_HELP = `usage: ${PRODUCT} doctor [options]

Runs, inside this same confined process, the server a host would get and checks the whole
path to the daemon: permission grant, both MCP handshakes, tools/list, diagnostics,
compatibility, health and the host command. With --host, it then reads the entry that host
really has (through its own command, else its files; read-only) and runs that exact command:
initialize and health through it, and every drift named (the socket it uses against where the
daemon answers, a command gone or older, the approval mode, Gemini CLI's folder trust). Prints
a checklist, one verdict and the next steps.

  --socket PATH     daemon socket (default: $PORTREEVE_SOCKET, else the platform default)
  --label NAME      the label a host entry would pass to serve
  --toolset SET     ${TOOLSETS.join(" | ")} (default full)
  --host HOST       whose entry to read and run (default generic: none): one of
                    ${wrappedList(HOST_IDS, ", ", " ".repeat(20))}
  --approval MODE   the serve --approval mode to check: ${
  APPROVAL_MODES.join(" | ")
} (default ${DEFAULT_APPROVAL_MODE});
                    the report says what a person gets on this host in that mode
  --json            one JSON object {version, verdict, next, checks} instead of the checklist
  -h, --help        this help

Exit codes: 0 ok, 2 usage error, 3 daemon unavailable, 4 incompatible, 5 misconfigured,
6 the host has no entry.`;

export async function runDoctor(
  args: string[],
  io: CommandIO,
  context: PlaceContext = hostContext(),
): Promise<number> {
  const values = parseOptions(args, DOCTOR_OPTIONS, commandLine(["doctor", "--help"]));
  if (values.help) {
    io.stdout(`${DOCTOR_HELP}\n`);
    return DOCTOR_EXIT.ok;
  }
  const options = checkedOptions(values);
  // Doctor's own log lines pass the same scrubber as serve's: a credential never reaches them.
  const fragments = new CredentialFragments();
  configureLogging("error", { scrub: (line) => fragments.scrub(line) });
  const report = new Report();
  const socket = locateSocket(values.socket);
  const { own, unreachable } = await bridgeChecks(report, options, socket, fragments);
  const profile = findHost(options.host)!;
  hostCommandLines(report, options, socket);
  let reached: string | null = null;
  if (profile.entry === null) {
    report.add("info", "host entry", `${profile.label}: no one place to read an entry from`);
  } else {
    const { entryChecks } = await import("./doctor_entry.ts");
    const { approval, given } = options;
    reached = await entryChecks(report, { profile, context, own, given, approval });
  }
  if (unreachable !== null) {
    // PortReeve runs where the host's entry points: the host works; doctor's socket is the drift.
    if (reached === null) report.needs("unavailable", startDaemonStep());
    else unreachable.status = "warn";
  }
  const unstable = pathWarnings(report);
  report.print(io, values.json === true, whenOk(unstable));
  return DOCTOR_EXIT[report.verdict];
}

interface DoctorOptions {
  toolset: Toolset;
  approval: ApprovalMode;
  host: string;
  label: string | undefined;
  /** The options that shape an entry, each only when given: setup's next step keeps them. */
  given: EntryOptions;
}

function checkedOptions(
  values: { toolset?: string; approval?: string; host: string; label?: string },
): DoctorOptions {
  const toolset = oneOf(values.toolset ?? "full", TOOLSETS, "--toolset");
  const approval = oneOf(values.approval ?? DEFAULT_APPROVAL_MODE, APPROVAL_MODES, "--approval");
  if (findHost(values.host) === undefined) throw new UsageError(unknownHostMessage(values.host));
  const label = values.label === undefined ? undefined : checkLabel(values.label);
  const given = {
    label,
    toolset: values.toolset === undefined ? undefined : toolset,
    approval: values.approval === undefined ? undefined : approval,
  };
  return { toolset, approval, host: values.host, label, given };
}

/**
 * The server a host would get from this installation, run in this process; what it found, and
 * the daemon line when nothing answered (its verdict waits for the host's entry: see runDoctor).
 */
async function bridgeChecks(
  report: Report,
  options: DoctorOptions,
  socket: SocketLocation,
  fragments: CredentialFragments,
): Promise<{ own: OwnDaemon; unreachable: Check | null }> {
  const { toolset, label, approval } = options;
  report.add(
    "info",
    "bridge",
    `${PRODUCT} ${SOFTWARE_VERSION}, toolset ${toolset}${label ? `, label ${label}` : ""}`,
  );
  report.add("info", "socket", `${socket.path} (from ${socket.source})`);
  const misconfiguration = grantProblem(socket.path);
  report.add(
    misconfiguration ? "fail" : "ok",
    "permission grant",
    misconfiguration ?? "covers this socket",
  );
  if (misconfiguration) report.needs("misconfigured", grantNextStep(socket.path));
  const bridge = createBridge({ socket, label, toolset, approval, fragments });
  const shutdown = new AbortController();
  let daemon: DaemonFound = { pid: null, unreachable: null };
  try {
    for (const era of ["legacy", "modern"] as const) {
      const session = await openSession(era, () => bridge.server(shutdown.signal, era));
      try {
        handshakeCheck(report, era, session.frames);
        if (era === "legacy") daemon = await daemonChecks(session.client, report);
      } finally {
        await session.close();
      }
    }
  } catch (error) {
    report.add("fail", "MCP handshake", error instanceof Error ? error.message : String(error));
    report.needs("misconfigured", grantNextStep(socket.path));
  } finally {
    shutdown.abort();
    await bridge.close();
  }
  return { own: { socket: socket.path, pid: daemon.pid }, unreachable: daemon.unreachable };
}

function handshakeCheck(report: Report, era: "legacy" | "modern", frames: Frame[]): void {
  const listed = frames.find((f) => Array.isArray(f.result?.tools))?.result;
  const tools = Array.isArray(listed?.tools) ? listed.tools : undefined;
  const cached = listed?.ttlMs === 0 && listed?.cacheScope === "private";
  report.add(
    tools && cached ? "ok" : "fail",
    `MCP handshake (${era === "legacy" ? "2025-11-25 initialize" : "2026-07-28 server/discover"})`,
    tools
      ? `${tools.length} tools; tools/list ${
        cached ? "carries" : "LACKS"
      } ttlMs 0 / cacheScope private`
      : "no tools/list answer",
  );
}

/** What `config --host` would print, and what a person gets on that host in that mode. */
function hostCommandLines(report: Report, options: DoctorOptions, socket: SocketLocation): void {
  const { host, label, toolset, approval } = options;
  report.add("info", `approval (${host})`, approvalReport(approval, host));
  report.add("info", `host command (${host})`, hostCommand(host, socket, label, toolset, approval));
}

/** The same warnings config prints: a host command that breaks once a cache is cleared. */
function pathWarnings(report: Report): boolean {
  const installation = detectInstallation();
  const unstable = unstablePathWarnings(installation, readerForm(installation));
  for (const warning of unstable) {
    report.add("warn", "host command paths", warning.replace(/^Warning: /, ""));
  }
  return unstable.length > 0;
}

function whenOk(unstable: boolean): string {
  return unstable
    ? "Everything a host needs works today, but the host command above depends on paths " +
      "that may disappear: see [warn] above before adding it to your agent host."
    : "Everything a host needs works.";
}

function grantNextStep(socketPath: string): string {
  return "The bridge's Deno permission grant does not cover this socket (a permission, not a " +
    "daemon problem): relaunch it with the command " +
    `\`${commandLine(["config", "--socket", socketPath, "--host", "claude"])}\` prints.`;
}

/** What doctor reads of each tool's (compact) data: absent lists and guidance are empty. */
const DIAGNOSTICS = z.object({
  daemon: z.object({ available: z.boolean() }),
  error: z.object({ message: z.string() }).optional(),
});
const COMPATIBILITY = z.object({
  compatible: z.boolean(),
  missingCapabilities: z.array(z.string()).default([]),
  guidance: z.string().nullable().default(null),
});
const HEALTH = z.object({
  softwareVersion: z.string(),
  protocol: z.object({ minimum: z.int(), maximum: z.int() }),
  pid: z.int(),
});

type Read<S extends z.ZodType> =
  | { ok: true; data: z.output<S> }
  | { ok: false; error: { code: string; message: string } };

interface DaemonFound {
  /** The daemon's pid when it answered. */
  pid: number | null;
  /** The failed daemon line when nothing answered; the caller gives the verdict. */
  unreachable: Check | null;
}

/** The daemon through doctor's own bridge. */
async function daemonChecks(client: Client, report: Report): Promise<DaemonFound> {
  const result = async <S extends z.ZodType>(name: string, schema: S): Promise<Read<S>> => {
    const envelope = envelopeOf(await client.callTool({ name, arguments: {} }));
    if (!envelope.ok) return envelope;
    const data = schema.safeParse(envelope.data);
    return data.success ? { ok: true, data: data.data } : {
      ok: false,
      error: { code: "unreadable", message: `${name} answered data doctor cannot read` },
    };
  };
  const diag = await result("portreeve_diagnostics", DIAGNOSTICS);
  if (!diag.ok || !diag.data.daemon.available) {
    // What happened, for a person; the next step says what they can do about it.
    const said = diag.ok ? diag.data.error?.message : diag.error.message;
    return { pid: null, unreachable: report.add("fail", "daemon", said ?? "not reachable") };
  }
  report.add("ok", "daemon", "answers on the socket");
  const compat = await result("portreeve_compatibility", COMPATIBILITY);
  const compatible = compat.ok && compat.data.compatible;
  report.add(
    compatible ? "ok" : "fail",
    "compatibility",
    compatible
      ? "protocol 1 and every required capability"
      : compat.ok
      ? `${compat.data.guidance ?? ""} missing: ${
        compat.data.missingCapabilities.join(", ") || "none"
      }`
      : `${compat.error.code}: ${compat.error.message}`,
  );
  if (!compatible) {
    report.needs(
      "incompatible",
      "Update PortReeve or portreeve-mcp so both speak protocol 1 with the listed capabilities, restart the daemon, then run doctor again.",
    );
  }
  const health = await result("portreeve_health", HEALTH);
  if (!health.ok) {
    report.add("fail", "daemon health", `${health.error.code}: ${health.error.message}`);
    return { pid: null, unreachable: null };
  }
  const h = health.data;
  report.add(
    "ok",
    "daemon health",
    `PortReeve ${h.softwareVersion}, protocol ${h.protocol.minimum}–${h.protocol.maximum}, pid ${h.pid}`,
  );
  return { pid: h.pid, unreachable: null };
}

interface Frame {
  result?: Json;
}

/** One in-memory MCP session in the given era, recording every server→client frame. */
async function openSession(era: "legacy" | "modern", factory: Parameters<typeof serveStdio>[0]) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const frames: Frame[] = [];
  const deliver = serverSide.send.bind(serverSide);
  serverSide.send = (message: JSONRPCMessage, options) => {
    frames.push("result" in message && isObject(message.result) ? { result: message.result } : {});
    return deliver(message, options);
  };
  const handle = serveStdio(factory, { legacy: "serve", transport: serverSide });
  const client = new Client(
    { name: "portreeve-mcp-doctor", version: SOFTWARE_VERSION },
    { versionNegotiation: { mode: era === "modern" ? { pin: "2026-07-28" } : "legacy" } },
  );
  await client.connect(clientSide);
  await client.listTools();
  return {
    client,
    frames,
    async close() {
      await client.close();
      await handle.close();
    },
  };
}
