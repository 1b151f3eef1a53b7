/**
 * Bench baseline for per-call overhead: the SDK's `serveStdio` with one tool that sends the
 * same request to the daemon socket and returns the body as text — no validation, no
 * envelope, no custody. The gap between this and a direct request is what the SDK and the
 * stdio hop cost before any bridge code runs.
 */
import { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { DAEMON_URL_HOST } from "../../src/shared/permissions.ts";

const client = Deno.createHttpClient({
  proxy: { transport: "unix", path: Deno.env.get("PORTREEVE_SOCKET")! },
});
serveStdio(() => {
  const server = new Server({ name: "call-floor", version: "0.0.0" }, {
    capabilities: { tools: {} },
  });
  server.setRequestHandler("tools/list", () => ({
    tools: [{
      name: "get",
      inputSchema: { type: "object", properties: { path: { type: "string" } } },
    }],
  }));
  server.setRequestHandler("tools/call", async (request) => {
    const path = String(request.params.arguments?.path ?? "/v1/health");
    const text = await (await fetch(`http://${DAEMON_URL_HOST}${path}`, { client })).text();
    return { content: [{ type: "text", text }] };
  });
  return server;
}, { legacy: "serve" });
