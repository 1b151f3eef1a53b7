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

/**
 * Some hosts cut instructions to about 250 characters, so the rule that matters most comes
 * first: never free a port yourself; every consequential change waits for a person.
 */
export const INSTRUCTIONS =
  "PortReeve's daemon is the only authority on local dev ports. Never kill processes or edit files to free a port yourself: a change goes through *_preview, then the user's explicit approval, then *_execute. On failure follow error.nextStep. " +
  "Use these tools to see which ports are claimed and by whom and to coordinate leases and stack activations; portreeve_diagnostics explains failures. " +
  "Every result is {ok:true,data} or {ok:false,error:{code,message,retryable,nextStep,details}} with isError set; its text is a one-line summary, a newline, then that JSON. " +
  "Ids are UUIDs from earlier results; paths are absolute; limit is 1-200 (default 50); pass afterCursor back with the same filters.";

export function createServer(
  catalogue: Catalogue,
  services: () => Promise<Services>,
  shutdown: AbortSignal,
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
    return services()
      .then((loaded) => catalogue.call(name, args, { ...loaded, signal: linked.signal }))
      .finally(linked.release);
  });
  return server;
}
