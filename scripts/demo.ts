/**
 * `deno task demo`: a guided MCP session against a SIMULATED PortReeve daemon. It starts the
 * simulator on a temporary socket, launches the real confined `serve` process exactly as a
 * host would, and walks a session: handshake, tools/list, diagnostics, inspection, a lease
 * bound by a real listener, confirm, release — printing what an agent would see.
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { fileURLToPath } from "node:url";
import { startSimulator } from "../src/simulator/mod.ts";
import { seedDemo } from "../src/simulator/seed.ts";
import { confinedFlags } from "../src/permissions.ts";

const bold = (s: string) => Deno.stdout.isTerminal() ? `\x1b[1m${s}\x1b[0m` : s;
const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "portreeve-demo-" }));
const socketPath = `${dir}/portreeve.sock`;
const sim = await startSimulator({ socketPath });
await seedDemo(socketPath, dir);

console.log(bold("PortReeve MCP demo — against a SIMULATED daemon (not a real PortReeve)"));
console.log(`simulator socket: ${socketPath}\n`);

const entry = fileURLToPath(new URL("../main.ts", import.meta.url));
const args = [
  "run",
  ...confinedFlags(socketPath),
  entry,
  "serve",
  "--socket",
  socketPath,
  "--label",
  "demo",
  "--log-level",
  "warn",
];
console.log(bold("1. Launch the bridge as a host would (confined to this one socket):"));
console.log(`   deno ${args.join(" ")}\n`);

const transport = new StdioClientTransport({ command: Deno.execPath(), args, stderr: "inherit" });
const client = new Client({ name: "demo-host", version: "1.0.0" });
const started = performance.now();
await client.connect(transport);
const { tools } = await client.listTools();
console.log(bold("2. Handshake and tools/list:"));
console.log(
  `   ${client.getServerVersion()?.name} ${client.getServerVersion()?.version}: ${tools.length} tools in ${
    Math.round(performance.now() - started)
  } ms\n`,
);

async function show(step: string, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  // The text is a summary line, then the envelope as JSON for hosts that read only text;
  // a person watching the demo wants the line.
  const text = (result.content as { text: string }[])[0].text.split("\n")[0];
  console.log(
    bold(`${step} ${name}`) + (Object.keys(args).length ? ` ${JSON.stringify(args)}` : ""),
  );
  console.log(`   ${result.isError ? "ERROR " : ""}${text}\n`);
  return (result.structuredContent as { data?: Record<string, unknown> }).data ?? {};
}

await show("3.", "portreeve_diagnostics");
await show("4.", "portreeve_ports_list");
await show("5.", "portreeve_claims_list", { limit: 5 });
await show("6.", "portreeve_stacks_list");
const lease = await show("7.", "portreeve_lease_acquire", {
  claim: {
    project: "demo-app",
    workspaceRoot: `${dir}/demo-app`,
    component: "web",
    endpoint: "http",
  },
});
const listener = Deno.listen({ hostname: "127.0.0.1", port: lease.port as number });
console.log(`   (the demo now listens on 127.0.0.1:${lease.port} as process ${Deno.pid})\n`);
const run = await show("8.", "portreeve_lease_confirm", {
  credentialHandle: lease.credentialHandle,
  rootPid: Deno.pid,
});
await show("9.", "portreeve_port_inspect", { port: lease.port });
listener.close();
await show("10.", "portreeve_run_release", { runId: run.runId });
await show("11.", "portreeve_claim_get", { id: "00000000-0000-4000-8000-000000000000" });

await client.close();
await sim.close();
await Deno.remove(dir, { recursive: true });
console.log(bold("Done. Everything above ran against the SIMULATED daemon."));
