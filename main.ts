/**
 * portreeve-mcp: an MCP bridge (stdio) to the PortReeve daemon.
 * The stdout guard is imported first so nothing can print to stdout but MCP frames.
 */
import "./src/transport/stdout_guard.ts";
import { run } from "./src/cli/main.ts";

if (import.meta.main) Deno.exit(await run(Deno.args));
