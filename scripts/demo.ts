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
import { childEnv, confinedFlags } from "../src/shared/permissions.ts";
import { envelopeOf, isErrorResult } from "../src/results/result.ts";
import { taskCommand, taskStep, taskUsage } from "../src/shared/hints.ts";

const HELP = `usage: ${taskUsage("demo")}

Starts the SIMULATED PortReeve daemon on a temporary socket, launches the real confined serve
as a host would, walks an MCP session step by step and prints what an agent sees. Removes the
socket and the demo's files when done. Takes no arguments.

Exit codes: 0 done, 1 a step failed, 2 usage error.`;

if (Deno.args.length > 0) {
  const help = Deno.args.every((arg) => arg === "--help" || arg === "-h");
  if (help) console.log(HELP);
  else {
    const seeHelp = taskCommand("demo", ["--help"]).command;
    console.error(`demo: takes no arguments (got ${Deno.args.join(" ")}); see \`${seeHelp}\``);
  }
  Deno.exit(help ? 0 : 2);
}

const bold = (s: string) => Deno.stdout.isTerminal() ? `\x1b[1m${s}\x1b[0m` : s;
/** Longest a step may take before the demo gives up on it (a busy machine is slow, not stuck). */
const STEP_TIMEOUT_MS = 300_000;
const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "portreeve-demo-" }));
const socketPath = `${dir}/portreeve.sock`;
const removeDir = () => Deno.remove(dir, { recursive: true }).catch(() => {});
// Ctrl-C (or a kill) mid-session: nothing of the demo's is left behind. The bridge child exits
// on its own when its stdin closes with us.
for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  Deno.addSignalListener(signal, () => {
    console.error(`demo: stopped by ${signal}; removed its temporary folder.`);
    void removeDir().finally(() => Deno.exit(code));
  });
}
let failed = false;
try {
  await runDemo();
} catch (error) {
  // A person reads this: what failed, in one line, never a stack trace.
  failed = true;
  console.error(`demo: ${describe(error)}`);
  console.error("demo: nothing was left behind; run it again (a busy machine can be slow).");
} finally {
  await removeDir();
}
Deno.exit(failed ? 1 : 0);

/** The bridge's first error in its log: a JSON line's message, else Deno's own error line. */
function bridgeError(log: string): string | undefined {
  // deno colours its own errors even on a pipe.
  const ESC = String.fromCharCode(27);
  for (const line of log.replaceAll(new RegExp(`${ESC}\\[[0-9;]*m`, "g"), "").split("\n")) {
    const uncaught = line.match(/^error: (?:Uncaught (?:\(in promise\) )?)?(.+)$/);
    if (uncaught) return uncaught[1];
    try {
      const entry = JSON.parse(line) as { level?: string; message?: string };
      if (entry.level === "error" && entry.message) return entry.message;
    } catch {
      // Not a log line.
    }
  }
  return undefined;
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, " ").trim() || "a step failed";
}

async function runDemo(): Promise<void> {
  // Demos may run side by side (the tests run one per reader form): each leases from its own
  // stretch of the automatic range, starting below the OS ephemeral range that leases skip, so
  // two never hand out the same free port at once.
  const start = 10_240 + 100 * Math.floor(Math.random() * 200);
  const sim = await startSimulator({
    socketPath,
    lapses: "clock",
    settings: { automaticPortRanges: [{ start, end: 49_151 }] },
  });
  try {
    await seedDemo(socketPath, dir);
    await walkSession();
  } finally {
    await sim.close();
  }
}

async function walkSession(): Promise<void> {
  console.log(bold("PortReeve MCP demo — against a SIMULATED daemon (not a real PortReeve)"));
  console.log(
    "PortReeve hands out local development ports so parallel projects and agents never collide:",
  );
  console.log(
    "a daemon owns every assignment, and this bridge lets an AI agent ask it over MCP.\n",
  );
  console.log(`simulator socket ($SOCK below): ${socketPath}\n`);

  const entry = fileURLToPath(new URL("../main.ts", import.meta.url));
  const serve = ["serve", "--socket", socketPath, "--label", "demo", "--log-level", "warn"];
  const args = ["run", ...confinedFlags(socketPath), entry, ...serve];
  console.log(bold("1. Launch the bridge as a host would, confined to this one socket:"));
  const shown = ["deno", ...args.slice(0, 4), "…", "main.ts", ...serve.slice(0, 3)]
    .join(" ").replaceAll(socketPath, "$SOCK");
  console.log(`   ${shown}`);
  console.log(
    `   (full flags: src/shared/permissions.ts; ${
      taskStep("config", ["--host", "claude"])
    } prints all)\n`,
  );

  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args,
    env: childEnv(),
    stderr: "pipe",
  });
  // The bridge's log is for whoever runs it; if the session fails, its first error says why.
  let log = "";
  const logged = Promise.withResolvers<void>();
  transport.stderr?.on("data", (chunk: Uint8Array) => log += new TextDecoder().decode(chunk));
  transport.stderr?.on("end", () => logged.resolve());
  transport.stderr?.on("close", () => logged.resolve());
  const client = new Client({ name: "demo-host", version: "1.0.0" });
  const started = performance.now();
  try {
    await client.connect(transport, { timeout: STEP_TIMEOUT_MS });
    try {
      await steps(client, started);
    } finally {
      await client.close();
    }
  } catch (error) {
    await client.close().catch(() => {}); // the bridge is gone: its log is complete
    await logged.promise;
    const said = bridgeError(log);
    throw new Error(`${describe(error)}${said ? `; the bridge said: ${said}` : ""}`);
  }
  console.log(bold("Done. Everything above ran against the SIMULATED daemon."));
}

async function steps(client: Client, started: number): Promise<void> {
  const { tools } = await client.listTools(undefined, { timeout: STEP_TIMEOUT_MS });
  console.log(bold("2. Handshake and tools/list:"));
  console.log(
    `   ${client.getServerVersion()?.name} ${client.getServerVersion()?.version}: ${tools.length} tools in ${
      Math.round(performance.now() - started)
    } ms\n`,
  );

  async function show(step: string, name: string, args: Record<string, unknown> = {}) {
    const result = await client.callTool({ name, arguments: args }, { timeout: STEP_TIMEOUT_MS })
      .catch((error: unknown) => {
        throw new Error(`step ${step} (${name}) failed: ${describe(error)}`);
      });
    // What the model reads: an error's first line, or the head of a success's JSON.
    const whole = (result.content as { text: string }[])[0].text;
    const first = whole.split("\n")[0];
    // How much of it the demo prints (a constant here: the module's top level runs the demo).
    const SHOWN = 160;
    const text = first.length > SHOWN
      ? `${first.slice(0, SHOWN)}… (${first.length} characters)`
      : first;
    console.log(
      bold(`${step} ${name}`) + (Object.keys(args).length ? ` ${JSON.stringify(args)}` : ""),
    );
    console.log(`   ${isErrorResult(result) ? "ERROR " : ""}${text}\n`);
    const envelope = envelopeOf(result);
    return envelope.ok ? (envelope.data as Record<string, unknown>) ?? {} : {};
  }

  await show("3.", "portreeve_diagnostics");
  await show("4.", "portreeve_ports_list");
  console.log(
    "   A claim is a durable name for a port: project + workspace + component + endpoint.",
  );
  await show("5.", "portreeve_claims_list", { limit: 5 });
  await show("6.", "portreeve_stacks_list");
  console.log(
    "   A lease reserves the claim's port until your process listens on it; the bridge keeps\n" +
      "   the lease's secret token to itself and gives the agent a credential handle instead.",
  );
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
  console.log("   Step 11 asks for a claim that does not exist, on purpose, to show an error.");
  await show("11.", "portreeve_claim_get", { id: "00000000-0000-4000-8000-000000000000" });
}
