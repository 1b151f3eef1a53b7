/** Bench baseline: the SDK's dual-era `serveStdio` with a tools capability and no tools. */
import { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

serveStdio(() => {
  const server = new Server({ name: "floor", version: "0.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", () => ({ tools: [] }));
  return server;
}, { legacy: "serve" });
