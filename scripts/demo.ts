/**
 * `deno task demo`: a guided MCP session against a SIMULATED PortReeve daemon. It starts the
 * simulator on a temporary socket, launches the real confined `serve` process exactly as a
 * host would, and walks a session: handshake, tools/list, diagnostics, inspection, a lease
 * bound by a real listener, confirm, release, and a change a person approves (the bridge's
 * question, asked through MCP elicitation, answered by a SIMULATED person) — printing what an
 * agent would see, and what the person is asked.
 */
import { Client, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { fileURLToPath } from "node:url";
import { startSimulator } from "../src/simulator/mod.ts";
import { seedDemo } from "../src/simulator/seed.ts";
import { childEnv, confinedFlags } from "../src/shared/permissions.ts";
import { envelopeOf, isErrorResult } from "../src/results/result.ts";
import { taskCommand, taskStep, taskUsage } from "../src/shared/hints.ts";

const HELP = `usage: ${taskUsage("demo")}

Starts the SIMULATED PortReeve daemon on a temporary socket, launches the real confined serve
as a host would, walks an MCP session step by step and prints what an agent sees, ending with
a change a person must approve: the bridge's question is shown as a host would show it, and a
SIMULATED person answers yes. Removes the socket and the demo's files when done. Takes no
arguments.

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
  // A host that can ask its user (MCP elicitation); here the "user" is simulated, and says so.
  const client = new Client({ name: "demo-host", version: "1.0.0" }, {
    capabilities: { elicitation: { form: {} } },
  });
  client.setRequestHandler("elicitation/create", (request) => simulatedPerson(request.params));
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

/**
 * The person at the host, SIMULATED: prints the bridge's question as a host would show it, and
 * answers yes to the one thing it asks (its boolean field), as a person who read it would.
 */
function simulatedPerson(params: ElicitRequest["params"]): Promise<ElicitResult> {
  const message = "message" in params ? params.message : "";
  const schema = "requestedSchema" in params ? params.requestedSchema : undefined;
  const field = Object.entries(schema?.properties ?? {})
    .find(([, property]) => (property as { type?: string }).type === "boolean")?.[0];
  console.log(bold("   The host asks its user (SIMULATED person, answered by the demo):"));
  for (const line of message.split("\n")) console.log(`   │ ${line}`);
  console.log(`   └ SIMULATED person answers: yes${field ? ` (${field}: true)` : ""}\n`);
  return Promise.resolve(
    field === undefined ? { action: "decline" } : { action: "accept", content: { [field]: true } },
  );
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
  console.log(
    "   Deleting a claim is consequential: the agent previews it, and nothing happens until a\n" +
      "   person says yes to the bridge's own question (the agent cannot answer it).",
  );
  const claimId = lease.claimId;
  const preview = await show("12.", "portreeve_claim_delete_preview", { claimId });
  const done = await show("13.", "portreeve_claim_delete_execute", {
    receiptId: preview.receiptId,
    claimId,
  });
  if (done.changed !== true) throw new Error("step 13: the approved change was not made");
  console.log(
    "   The person approved, so the bridge sent the delete; a no would have sent nothing.\n",
  );
}
