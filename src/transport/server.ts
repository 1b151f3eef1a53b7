/**
 * The MCP server a host talks to: tools only, a fixed catalogue, cache fields on tools/list
 * in both protocol eras. Built on the SDK's low-level `Server` so tools/list is served from
 * a list we build once instead of regenerating JSON Schema on every request.
 */
import { isObject } from "../shared/json.ts";
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { CallToolResult, InputRequiredResult, Tool } from "@modelcontextprotocol/server";
import { SERVER_NAME, SOFTWARE_VERSION } from "../shared/options.ts";
import { linkedSignal, REAL_TIMERS, type Timers } from "../shared/signals.ts";
import { DEFAULT_DAEMON_WAIT_MS } from "../shared/options.ts";
import { HostAskError, type HostChannel } from "../shared/host_channel.ts";
import { BridgeError, Codes } from "../shared/errors.ts";
import { CallLimiter } from "./call_limiter.ts";

/** What this server serves; the bridge hands it the catalogue with its services behind it. */
export interface ServedTools {
  readonly size: number;
  readonly toolset: string;
  /** What the host shows its model before any call (see catalogue/instructions.ts). */
  readonly instructions: string;
  listing(): Tool[];
  has(name: string): boolean;
  call(
    name: string,
    args: unknown,
    call: { signal: AbortSignal; host: HostChannel; client: string | undefined },
  ): Promise<CallToolResult | InputRequiredResult>;
  /**
   * The tool result for a call the bridge refused before running it (e.g. too busy), for the
   * host that named itself `client`.
   */
  refused(error: BridgeError, client: string | undefined): CallToolResult;
}

/** Which protocol era this server instance serves (serveStdio pins one per connection). */
export type Era = "legacy" | "modern";

/** How long a call may wait for the daemon, and how a waiting host is told so. */
export interface CallTiming {
  /** The call's bound in all (`serve --daemon-wait-ms`); the host's cancel may come first. */
  daemonWaitMs: number;
  /** How often a host that asked for progress (`_meta.progressToken`) hears of the wait. */
  progressEveryMs: number;
  /** The bound's and the progress notes' timers (a test fires its own). */
  timers: Timers;
}

/**
 * Progress every 5 s: hosts that reset their own timeout on progress (Claude Code, OpenCode,
 * Qwen Code's idle timeout: docs/hosts.md) keep waiting while the daemon works through a queue.
 */
export const CALL_TIMING: CallTiming = {
  daemonWaitMs: DEFAULT_DAEMON_WAIT_MS,
  progressEveryMs: 5_000,
  timers: REAL_TIMERS,
};

export function createServer(
  tools: ServedTools,
  shutdown: AbortSignal,
  era: Era = "legacy",
  limiter: CallLimiter = new CallLimiter(),
  timing: CallTiming = CALL_TIMING,
): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SOFTWARE_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: tools.instructions },
  );
  // The SDK adds ttlMs/cacheScope only on the 2026-07-28 path; we set them ourselves so
  // 2025-era hosts see the same "do not cache across sessions" hint.
  server.setRequestHandler("tools/list", () => ({
    tools: tools.listing(),
    ttlMs: 0,
    cacheScope: "private",
  }));
  server.setRequestHandler("tools/call", (request, ctx) => {
    const { name, arguments: args } = request.params;
    if (!tools.has(name)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool "${name}". Call tools/list for the ${tools.size} tools of the ${tools.toolset} toolset.`,
      );
    }
    // The call ends when it is answered, the host cancels it, or its bound runs out.
    const linked = linkedSignal([ctx.mcpReq.signal, shutdown], timing.daemonWaitMs, timing.timers);
    const asking = { open: 0 };
    const host = hostChannel(server, era, ctx, asking);
    const client = clientName(server, era, ctx);
    const progress = reportProgress(ctx, linked.signal, timing, asking);
    // A refused call is a tool error, not a JSON-RPC one: hosts show it to the model, which
    // can wait and retry, while many hosts treat a JSON-RPC error as the server failing.
    return limiter.run(
      () => tools.call(name, args, { signal: linked.signal, host, client }),
      linked.signal,
    ).catch((error) => {
      if (error instanceof BridgeError && error.code === Codes.bridgeBusy) {
        return tools.refused(error, client);
      }
      throw error;
    }).finally(() => {
      progress.stop();
      linked.release();
    });
  });
  return server;
}

/**
 * How a tool call can reach the person at the host. 2025 era: the client's `initialize`
 * capabilities, and a real `elicitation/create` request. 2026-07-28: the capabilities on the
 * request's own envelope, and the answers a retried call carries.
 */
function hostChannel(
  server: Server,
  era: Era,
  ctx: ServerContext,
  asking: { open: number },
): HostChannel {
  if (era === "modern") {
    const envelope: Record<string, unknown> = { ...ctx.mcpReq.envelope };
    const declared = envelope[CLIENT_CAPABILITIES_META_KEY];
    const state: unknown = ctx.mcpReq.requestState();
    return {
      canAsk: asksForms(declared),
      retried: {
        state: typeof state === "string" ? state : undefined,
        responses: ctx.mcpReq.inputResponses,
      },
    };
  }
  return {
    canAsk: asksForms(server.getClientCapabilities()),
    ask: (form, { timeoutMs, signal }) => {
      asking.open++;
      return ctx.mcpReq.elicitInput(form, { timeout: timeoutMs, signal }).catch(
        (error: unknown) => {
          const timedOut = error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
          throw new HostAskError(timedOut, error instanceof Error ? error.message : String(error));
        },
      ).finally(() => asking.open--);
    },
  };
}

/**
 * While a call waits, a host that sent `_meta.progressToken` gets `notifications/progress` every
 * `progressEveryMs`, saying what it waits for; none while the host itself is asking its user a
 * question of ours (it knows why it waits then). Both eras: over stdio the 2026-07-28 era keeps
 * progress notifications for a request in flight.
 */
function reportProgress(
  ctx: ServerContext,
  signal: AbortSignal,
  { progressEveryMs, timers }: CallTiming,
  asking: { open: number },
): { stop(): void } {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return { stop() {} };
  let beats = 0;
  let timer = timers.setTimeout(function beat() {
    if (signal.aborted) return;
    beats++;
    if (asking.open === 0) {
      ctx.mcpReq.notify({
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress: beats,
          message: waiting(beats * progressEveryMs),
        },
      }).catch(() => {}); // a host gone away hears nothing either way
    }
    timer = timers.setTimeout(beat, progressEveryMs);
  }, progressEveryMs);
  return { stop: () => timers.clearTimeout(timer) };
}

/** The note a waiting host gets. */
function waiting(ms: number): string {
  return `Still waiting for the PortReeve daemon after ${
    Math.round(ms / 1000)
  } s: it answers one request at a time, and this call is queued behind other agents' changes on the shared daemon.`;
}

/**
 * The name the host gave itself (`clientInfo.name`). 2025 era: its `initialize`. 2026-07-28:
 * the request's own envelope, as there is no `initialize` (and over stdio the SDK does not copy
 * the envelope's client into `getClientVersion()`), so a host on that era such as Copilot CLI
 * would otherwise go unnamed, and get what a host of no known name gets (src/shared/
 * host_treatment.ts) instead of its own.
 */
function clientName(server: Server, era: Era, ctx: ServerContext): string | undefined {
  const envelope: Record<string, unknown> = { ...ctx.mcpReq.envelope };
  const declared = era === "modern" ? envelope[CLIENT_INFO_META_KEY] : undefined;
  const info: unknown = isObject(declared) ? declared : server.getClientVersion();
  const name = isObject(info) ? info.name : undefined;
  return typeof name === "string" ? name : undefined;
}

/** Form-mode elicitation: declared as `{}` (the 2025-06-18 form) or with a `form` entry. */
export function asksForms(capabilities: unknown): boolean {
  const elicitation = isObject(capabilities) ? Reflect.get(capabilities, "elicitation") : undefined;
  if (!isObject(elicitation)) return false;
  return !("url" in elicitation) || "form" in elicitation;
}
