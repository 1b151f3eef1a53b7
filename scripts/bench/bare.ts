/** Bench baseline: a bare Deno program that answers initialize and tools/list by hand. */
const encoder = new TextEncoder();
const decoder = new TextDecoder();
let buffer = "";
for await (const chunk of Deno.stdin.readable) {
  buffer += decoder.decode(chunk, { stream: true });
  let newline: number;
  while ((newline = buffer.indexOf("\n")) !== -1) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    if (message.id === undefined) continue;
    const result = message.method === "initialize"
      ? {
        protocolVersion: "2025-11-25",
        capabilities: { tools: {} },
        serverInfo: { name: "bare", version: "0" },
      }
      : { tools: [] };
    await Deno.stdout.write(
      encoder.encode(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }) + "\n"),
    );
  }
}
