/**
 * `portreeve-mcp doctor`: runs, inside this same confined process, the server a host would
 * get (the bridge `serve` builds) behind an in-memory MCP client, and prints a
 * checklist with one verdict and the next step. Needs no permission beyond `serve`'s.
 */
import { Client, InMemoryTransport, type JSONRPCMessage } from "@modelcontextprotocol/client";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import {
  APPROVAL_MODES,
  DEFAULT_APPROVAL_MODE,
  PRODUCT,
  SOFTWARE_VERSION,
  TOOLSETS,
} from "../shared/options.ts";
import { approvalReport } from "./doctor_approval.ts";
import { locateSocket } from "../shared/socket_location.ts";
import { checkLabel, type CommandIO, oneOf, parseOptions, UsageError } from "./options.ts";
import { findHost, HOST_IDS, unknownHostMessage } from "../profiles/mod.ts";
import { createBridge } from "../bridge/mod.ts";
import { commandLine, grantProblem, readerForm, unstablePathWarnings } from "../shared/hints.ts";
import { startDaemonHint } from "./daemon_hint.ts";
import { wrappedList } from "./host_list.ts";
import { detectInstallation } from "../shared/installation.ts";
import { configureLogging } from "../shared/logging.ts";
import { CredentialFragments } from "../custody/fragments.ts";
import { envelopeOf } from "../results/result.ts";
import { isObject, type Json } from "../shared/json.ts";
import { z } from "zod";

export const DOCTOR_EXIT = {
  ok: 0,
  usage: 2,
  unavailable: 3,
  incompatible: 4,
  misconfigured: 5,
} as const;

type Status = "ok" | "fail" | "warn" | "info";
interface Check {
  status: Status;
  label: string;
  detail: string;
}

const MARK: Record<Status, string> = {
  ok: "[ok]  ",
  fail: "[FAIL]",
  warn: "[warn]",
  info: "[--]  ",
};

/** `doctor`'s options; `doctor --help` lists every one (a test keeps them in step). */
export const DOCTOR_OPTIONS = {
  socket: { type: "string" },
  label: { type: "string" },
  toolset: { type: "string", default: "full" },
  host: { type: "string", default: "generic" },
  approval: { type: "string", default: DEFAULT_APPROVAL_MODE },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export const DOCTOR_HELP = `usage: ${PRODUCT} doctor [options]

Runs, inside this same confined process, the server a host would get and checks the whole
path to the daemon: permission grant, both MCP handshakes, tools/list, diagnostics,
compatibility, health and the host command. Prints a checklist and one verdict.

  --socket PATH     daemon socket (default: $PORTREEVE_SOCKET, else the platform default)
  --label NAME      the label a host entry would pass to serve
  --toolset SET     ${TOOLSETS.join(" | ")} (default full)
  --host HOST       whose host command to show (default generic): one of
                    ${wrappedList(HOST_IDS, ", ", " ".repeat(20))}
  --approval MODE   the serve --approval mode to check: ${
  APPROVAL_MODES.join(" | ")
} (default ${DEFAULT_APPROVAL_MODE});
                    the report says what a person gets on this host in that mode
  --json            one JSON object {version, verdict, next, checks} instead of the checklist
  -h, --help        this help

Exit codes: 0 ok, 2 usage error, 3 daemon unavailable, 4 incompatible, 5 misconfigured.`;

export async function runDoctor(args: string[], io: CommandIO): Promise<number> {
  const values = parseOptions(args, DOCTOR_OPTIONS, commandLine(["doctor", "--help"]));
  if (values.help) {
    io.stdout(`${DOCTOR_HELP}\n`);
    return DOCTOR_EXIT.ok;
  }
  const toolset = oneOf(values.toolset, TOOLSETS, "--toolset");
  const approval = oneOf(values.approval, APPROVAL_MODES, "--approval");
  if (findHost(values.host) === undefined) throw new UsageError(unknownHostMessage(values.host));
  const label = values.label === undefined ? undefined : checkLabel(values.label);
  const fragments = new CredentialFragments();
  configureLogging("error", { scrub: (line) => fragments.scrub(line) });
  const socket = locateSocket(values.socket);
  const checks: Check[] = [];
  const add = (status: Status, label: string, detail: string) =>
    checks.push({ status, label, detail });

  add(
    "info",
    "bridge",
    `${PRODUCT} ${SOFTWARE_VERSION}, toolset ${toolset}${label ? `, label ${label}` : ""}`,
  );
  add("info", "socket", `${socket.path} (from ${socket.source})`);
  const misconfiguration = grantProblem(socket.path);
  add(
    misconfiguration ? "fail" : "ok",
    "permission grant",
    misconfiguration ?? "covers this socket",
  );

  const bridge = createBridge({ socket, label, toolset, approval, fragments });
  const shutdown = new AbortController();
  let verdict: keyof typeof DOCTOR_EXIT = misconfiguration ? "misconfigured" : "ok";
  try {
    for (const era of ["legacy", "modern"] as const) {
      const session = await openSession(
        era,
        () => bridge.server(shutdown.signal, era),
      );
      try {
        const listed = session.frames.find((f) => Array.isArray(f.result?.tools))?.result;
        const tools = Array.isArray(listed?.tools) ? listed.tools : undefined;
        const cached = listed?.ttlMs === 0 && listed?.cacheScope === "private";
        add(
          tools && cached ? "ok" : "fail",
          `MCP handshake (${
            era === "legacy" ? "2025-11-25 initialize" : "2026-07-28 server/discover"
          })`,
          tools
            ? `${tools.length} tools; tools/list ${
              cached ? "carries" : "LACKS"
            } ttlMs 0 / cacheScope private`
            : "no tools/list answer",
        );
        if (era === "legacy") verdict = await daemonChecks(session.client, add, verdict);
      } finally {
        await session.close();
      }
    }
  } catch (error) {
    add("fail", "MCP handshake", error instanceof Error ? error.message : String(error));
    verdict = "misconfigured";
  } finally {
    shutdown.abort();
    await bridge.close();
  }

  const { hostCommand } = await import("./doctor_host.ts");
  add("info", `approval (${values.host})`, approvalReport(approval, values.host));
  add(
    "info",
    `host command (${values.host})`,
    hostCommand(values.host, socket, label, toolset, approval),
  );
  // The same warnings config prints: a host command that breaks once a cache is cleared.
  const installation = detectInstallation();
  const unstable = unstablePathWarnings(installation, readerForm(installation));
  for (const warning of unstable) {
    add("warn", "host command paths", warning.replace(/^Warning: /, ""));
  }

  const next = nextStep(verdict, socket.path, unstable.length > 0);
  if (values.json) {
    io.stdout(JSON.stringify({ version: 1, verdict, next, checks }) + "\n");
  } else {
    io.stdout(checks.map((c) => `${MARK[c.status]} ${c.label}: ${c.detail}`).join("\n") + "\n\n");
    io.stdout(`Verdict: ${verdict.toUpperCase()}. ${next}\n`);
  }
  return DOCTOR_EXIT[verdict];
}

function nextStep(verdict: keyof typeof DOCTOR_EXIT, socketPath: string, unstable: boolean) {
  switch (verdict) {
    case "ok":
      return unstable
        ? "Everything a host needs works today, but the host command above depends on paths " +
          "that may disappear: see [warn] above before adding it to your agent host."
        : "Everything a host needs works; add the host command above to your agent host.";
    case "usage":
      return "";
    case "unavailable":
      return `${startDaemonHint()} Then run doctor again.`;
    case "incompatible":
      return "Update PortReeve or portreeve-mcp so both speak protocol 1 with the listed capabilities, restart the daemon, then run doctor again.";
    case "misconfigured":
      return "The bridge's Deno permission grant does not cover this socket (a permission, not a " +
        "daemon problem): relaunch it with the command " +
        `\`${commandLine(["config", "--socket", socketPath, "--host", "claude"])}\` prints.`;
  }
}

type Add = (status: Status, label: string, detail: string) => void;

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

async function daemonChecks(client: Client, add: Add, verdict: keyof typeof DOCTOR_EXIT) {
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
    // What happened, for a person; the verdict below says what they can do about it.
    const said = diag.ok ? diag.data.error?.message : diag.error.message;
    add("fail", "daemon", said ?? "not reachable");
    return verdict === "misconfigured" ? verdict : "unavailable";
  }
  add("ok", "daemon", "answers on the socket");
  const compat = await result("portreeve_compatibility", COMPATIBILITY);
  const compatible = compat.ok && compat.data.compatible;
  add(
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
  const health = await result("portreeve_health", HEALTH);
  if (health.ok) {
    const h = health.data;
    add(
      "ok",
      "daemon health",
      `PortReeve ${h.softwareVersion}, protocol ${h.protocol.minimum}–${h.protocol.maximum}, pid ${h.pid}`,
    );
  } else {
    add("fail", "daemon health", `${health.error.code}: ${health.error.message}`);
  }
  return compatible ? verdict : "incompatible";
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
