/**
 * A stdio MCP server with one tool, `portreeve_probe_result {bytes}`, whose result is a JSON
 * record of exactly that many bytes, as structuredContent and as the identical text block: the
 * suite asks a host for results of growing size and reads which ones its model saw whole. The
 * record looks like a page of ours (ids, ports, states), so hosts that count tokens count it as
 * they would count ours.
 *
 * The suite bundles it, so a host in a throwaway home starts it with no module cache.
 */
import { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

export const PROBE_TOOL = "portreeve_probe_result";
/** The smallest size the record can take. */
export const PROBE_MIN_BYTES = 64;

function item(index: number): Record<string, unknown> {
  const hex = index.toString(16).padStart(12, "0");
  return {
    id: `00000000-0000-4000-8000-${hex}`,
    port: 18000 + (index % 2000),
    state: ["idle", "verified", "pending"][index % 3],
    project: `probe-${index % 7}`,
  };
}

/** The record of exactly `bytes` bytes (ASCII, so characters too): items, then padding. */
export function probeRecord(bytes: number): Record<string, unknown> {
  if (!Number.isInteger(bytes) || bytes < PROBE_MIN_BYTES) {
    throw new Error(`a probe record has at least ${PROBE_MIN_BYTES} bytes, not ${bytes}`);
  }
  const items: Record<string, unknown>[] = [];
  // The record's bytes with no padding: its frame, then each item and the comma before it.
  let size = JSON.stringify({ items, end: "probe-end", pad: "" }).length;
  for (;;) {
    const next = item(items.length);
    const grows = JSON.stringify(next).length + (items.length > 0 ? 1 : 0);
    if (size + grows > bytes) break;
    items.push(next);
    size += grows;
  }
  return { items, end: "probe-end", pad: "x".repeat(bytes - size) };
}

/** The probe's result of `bytes`, as the server answers it. */
export function probeResult(bytes: number) {
  const record = probeRecord(bytes);
  return {
    content: [{ type: "text" as const, text: JSON.stringify(record) }],
    structuredContent: record,
  };
}

if (import.meta.main) {
  const tools = [{
    name: PROBE_TOOL,
    description: "Returns a record of the given size in bytes.",
    inputSchema: {
      type: "object" as const,
      properties: { bytes: { type: "integer", minimum: PROBE_MIN_BYTES } },
      required: ["bytes"],
      additionalProperties: false,
    },
  }];
  serveStdio(() => {
    const server = new Server({ name: "portreeve", version: "0.1.0" }, {
      capabilities: { tools: {} },
    });
    server.setRequestHandler("tools/list", () => ({ tools }));
    server.setRequestHandler("tools/call", (request) => {
      return probeResult(Number(request.params.arguments?.bytes));
    });
    return server;
  }, { legacy: "serve" });
}
