/**
 * The MCP server a host talks to: tools only, a fixed catalogue, cache fields on tools/list
 * in both protocol eras. Built on the SDK's low-level `Server` so tools/list is served from
 * a list we build once instead of regenerating JSON Schema on every request.
 */
import { ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import type { Catalogue } from "../catalogue/catalogue.ts";
import type { Services } from "../catalogue/context.ts";
import { SERVER_NAME, SOFTWARE_VERSION } from "../version.ts";
import { linkedSignal } from "../daemon/signals.ts";
import { BridgeError, Codes } from "../daemon/errors.ts";
import { failure } from "../catalogue/result.ts";
import { CallLimiter } from "./call_limiter.ts";

export const INSTRUCTIONS =
  "PortReeve keeps one registry of local development ports per user; its daemon is the only authority. " +
  "Use these tools to see which ports are claimed and by whom, and to coordinate leases and stack activations. " +
  "Run portreeve_diagnostics first when something fails. Never kill processes or edit files to free a port yourself; " +
  "consequential changes go through *_preview, a person's explicit approval, then *_execute. " +
  "Every result is {ok:true,data} or {ok:false,error:{code,message,retryable,details}} with isError set.";

export function createServer(
  catalogue: Catalogue,
  services: () => Promise<Services>,
  shutdown: AbortSignal,
  limiter: CallLimiter = new CallLimiter(),
): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SOFTWARE_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  // The SDK adds ttlMs/cacheScope only on the 2026-07-28 path; we set them ourselves so
  // 2025-era hosts see the same "do not cache across sessions" hint.
  server.setRequestHandler("tools/list", () => ({
    tools: catalogue.listing(),
    ttlMs: 0,
    cacheScope: "private",
  }));
  server.setRequestHandler("tools/call", (request, ctx) => {
    const { name, arguments: args } = request.params;
    if (!catalogue.has(name)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool "${name}". Call tools/list for the ${catalogue.size} tools of the ${catalogue.toolset} toolset.`,
      );
    }
    const linked = linkedSignal([ctx.mcpReq.signal, shutdown]);
    // A refused call is a tool error, not a JSON-RPC one: hosts show it to the model, which
    // can wait and retry, while many hosts treat a JSON-RPC error as the server failing.
    return limiter.run(
      () =>
        services().then((loaded) =>
          catalogue.call(name, args, { ...loaded, signal: linked.signal })
        ),
      linked.signal,
    ).catch((error) => {
      if (error instanceof BridgeError && error.code === Codes.bridgeBusy) return failure(error);
      throw error;
    }).finally(linked.release);
  });
  return server;
}
