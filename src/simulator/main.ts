// CLI: `deno task simulator --socket PATH [--seed-demo]` runs a SIMULATED PortReeve daemon.
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { startSimulator } from "./mod.ts";
import { seedDemo } from "./seed.ts";

const USAGE =
  "usage: deno task simulator --socket PATH [--seed-demo] [--hostile] [--latency MS] [--serial]";
const HELP = `${USAGE}

Runs a SIMULATED PortReeve daemon (protocol 1) on a Unix socket, for trying and testing the
bridge without PortReeve. It stops and removes its socket on SIGINT, SIGTERM, or when the
process that started it goes away.

  --socket PATH   where to listen (created; a stale socket there is replaced)
  --seed-demo     add demo projects, claims and a stack under a temporary folder
  --hostile       leak every lease token and launcher credential into answers (to test
                  the bridge's scrubbing)
  --latency MS    add MS milliseconds to every request that changes state (every POST
                  but status, validate, resolve and snapshot), renewals included
  --serial        serve one request at a time in arrival order, latency included, as the
                  real daemon does (with --latency 1000: a daemon busy with many agents)
  -h, --help      this help

With --latency or --serial it prints, when it stops, one line on stderr:
  SIMULATED daemon queue: {"served":N,"peak":N}

Exit codes: 0 stopped, 2 usage error.`;

/** Longest --latency accepted: beyond it no client deadline would be met anyway. */
const MAX_LATENCY_MS = 600_000;

/** How often the simulator checks that its parent is still there. */
const PARENT_POLL_MS = 500;

async function main(): Promise<number> {
  let values: {
    socket?: string;
    "seed-demo"?: boolean;
    hostile?: boolean;
    latency?: string;
    serial?: boolean;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: Deno.args,
      options: {
        socket: { type: "string" },
        "seed-demo": { type: "boolean" },
        hostile: { type: "boolean" },
        latency: { type: "string" },
        serial: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (!values.socket) {
    console.error(`--socket is required.\n${USAGE}`);
    return 2;
  }
  const latencyMs = values.latency === undefined ? 0 : Number(values.latency);
  if (!/^\d+$/.test(values.latency ?? "0") || latencyMs > MAX_LATENCY_MS) {
    console.error(`--latency must be whole milliseconds from 0 to ${MAX_LATENCY_MS}.\n${USAGE}`);
    return 2;
  }
  const serial = values.serial ?? false;
  const socketPath = resolve(values.socket);
  // Listen for stop requests before the socket exists, so a signal that arrives while the
  // simulator starts or seeds still removes it.
  const stopped = Promise.withResolvers<void>();
  const stop = () => stopped.resolve();
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  // Killing a wrapper (npx, deno task) must not leave an orphan holding the socket.
  const parent = Deno.ppid;
  const watch = setInterval(() => {
    if (Deno.ppid !== parent) stop();
  }, PARENT_POLL_MS);
  const sim = await startSimulator({
    socketPath,
    hostile: values.hostile ?? false,
    latencyMs,
    serial,
  });
  let demoRoot: string | null = null;
  if (values["seed-demo"]) {
    demoRoot = await Deno.makeTempDir({ prefix: "portreeve-sim-demo-" });
    await seedDemo(socketPath, demoRoot);
  }
  console.error(
    `SIMULATED PortReeve daemon (protocol 1, not a real daemon) listening on ${socketPath}` +
      (demoRoot ? ` with demo data under ${demoRoot}` : "") +
      (values.hostile ? " in HOSTILE mode (it leaks every credential it sees)" : "") +
      (latencyMs > 0 ? `, ${latencyMs} ms per change` : "") +
      (serial ? ", one request at a time" : ""),
  );
  await stopped.promise;
  clearInterval(watch);
  Deno.removeSignalListener("SIGINT", stop);
  Deno.removeSignalListener("SIGTERM", stop);
  await sim.close();
  if (latencyMs > 0 || serial) {
    const { served, peak } = sim.control.queue;
    console.error(`SIMULATED daemon queue: ${JSON.stringify({ served, peak })}`);
  }
  if (demoRoot) await Deno.remove(demoRoot, { recursive: true }).catch(() => {});
  return 0;
}

Deno.exit(await main());
