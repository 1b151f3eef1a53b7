// CLI: `deno task simulator --socket PATH [--seed-demo]` runs a SIMULATED PortReeve daemon.
// It lives in scripts/ because src/simulator/ imports nothing outside itself, and its usage
// lines are spelled by src/shared/hints.ts for the reader's way of running tasks.
import { dirname, resolve } from "node:path";
import type { Simulator } from "../src/simulator/mod.ts";
import { taskCommand, taskUsage } from "../src/shared/hints.ts";
import { socketPathLimit } from "../src/shared/socket_location.ts";
import { parseOptions, UsageError } from "../src/cli/options.ts";

const USAGE = `usage: ${
  taskUsage("simulator")
} --socket PATH [--seed-demo] [--hostile] [--latency MS] [--serial]`;
/** The command that prints the help, pasteable: a usage error's last words. */
const HELP_COMMAND = taskCommand("simulator", ["--help"]).command;
const SEE_HELP = `see \`${HELP_COMMAND}\``;
export const SIMULATOR_HELP = `${USAGE}

Runs a SIMULATED PortReeve daemon (protocol 1) on a Unix socket, for trying and testing the
bridge without PortReeve. It stops and removes its socket on SIGINT, SIGTERM, or when the
process that started it goes away.

  --socket PATH   where to listen (its missing folders are created, mode 0700; a stale
                  socket there is replaced, a live one or any other file is refused)
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

const SIMULATOR_OPTIONS = {
  socket: { type: "string" },
  "seed-demo": { type: "boolean" },
  hostile: { type: "boolean" },
  latency: { type: "string" },
  serial: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

async function main(): Promise<number> {
  let values;
  try {
    values = parseOptions(Deno.args, SIMULATOR_OPTIONS, HELP_COMMAND);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`simulator: ${error.message}`);
    return 2;
  }
  if (values.help) {
    console.log(SIMULATOR_HELP);
    return 0;
  }
  if (!values.socket) {
    console.error(`simulator: --socket PATH is required; ${SEE_HELP}`);
    return 2;
  }
  const latencyMs = values.latency === undefined ? 0 : Number(values.latency);
  if (!/^\d+$/.test(values.latency ?? "0") || latencyMs > MAX_LATENCY_MS) {
    console.error(
      `simulator: --latency must be whole milliseconds from 0 to ${MAX_LATENCY_MS}; ${SEE_HELP}`,
    );
    return 2;
  }
  const serial = values.serial ?? false;
  const socketPath = resolve(values.socket);
  // The bridge's rule: sun_path holds the path and its final NUL.
  const sunPath = socketPathLimit(Deno.build.os);
  const bytes = new TextEncoder().encode(socketPath).length;
  if (bytes >= sunPath) {
    console.error(
      `simulator: --socket is ${bytes} bytes, too long for a Unix socket (at most ${
        sunPath - 1
      } on ${Deno.build.os}); use a shorter path.`,
    );
    return 2;
  }
  const refused = await placeForSocket(socketPath);
  if (refused) {
    console.error(`simulator: ${refused}`);
    return 2;
  }
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
  // The simulator itself loads only now: a refusal above answers without it.
  const { startSimulator } = await import("../src/simulator/mod.ts");
  let sim: Simulator;
  try {
    sim = await startSimulator({
      socketPath,
      lapses: "clock", // as the daemon: what nobody renews runs out
      hostile: values.hostile ?? false,
      latencyMs,
      serial,
    });
  } catch (error) {
    clearInterval(watch);
    console.error(`simulator: cannot listen on ${socketPath}: ${oneLine(error)}`);
    return 2;
  }
  let demoRoot: string | null = null;
  if (values["seed-demo"]) {
    demoRoot = await Deno.makeTempDir({ prefix: "portreeve-sim-demo-" });
    const { seedDemo } = await import("../src/simulator/seed.ts");
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

/**
 * Makes the socket's folder (mode 0700, like PortReeve's own) and refuses a path that holds
 * anything but a stale socket: a live one may be a real daemon's, and is never taken over.
 * Returns why it refused, in one line, or null.
 */
async function placeForSocket(socketPath: string): Promise<string | null> {
  try {
    await Deno.mkdir(dirname(socketPath), { recursive: true, mode: 0o700 });
  } catch (error) {
    return `cannot create the folder of ${socketPath}: ${oneLine(error)}`;
  }
  const info = await Deno.lstat(socketPath).catch(() => null);
  if (info === null) return null;
  if (!info.isSocket) return `${socketPath} exists and is not a socket; choose another path`;
  const live = await Deno.connect({ transport: "unix", path: socketPath }).then(
    (connection) => (connection.close(), true),
    () => false,
  );
  return live
    ? `something already listens on ${socketPath} (a PortReeve daemon?); choose another path`
    : null;
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ");
}

if (import.meta.main) Deno.exit(await main());
