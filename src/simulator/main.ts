// CLI: `deno task simulator --socket PATH [--seed-demo]` runs a SIMULATED PortReeve daemon.
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { startSimulator } from "./mod.ts";
import { seedDemo } from "./seed.ts";

const USAGE = "usage: deno task simulator --socket PATH [--seed-demo] [--hostile]\n" +
  "  --hostile  leak every lease token and launcher credential into answers (bridge tests)";

async function main(): Promise<number> {
  let values: { socket?: string; "seed-demo"?: boolean; hostile?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: Deno.args,
      options: {
        socket: { type: "string" },
        "seed-demo": { type: "boolean" },
        hostile: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.error(USAGE);
    return 0;
  }
  if (!values.socket) {
    console.error(`--socket is required.\n${USAGE}`);
    return 2;
  }
  const socketPath = resolve(values.socket);
  const sim = await startSimulator({ socketPath, hostile: values.hostile ?? false });
  let demoRoot: string | null = null;
  if (values["seed-demo"]) {
    demoRoot = await Deno.makeTempDir({ prefix: "portreeve-sim-demo-" });
    await seedDemo(socketPath, demoRoot);
  }
  console.error(
    `SIMULATED PortReeve daemon (protocol 1, not a real daemon) listening on ${socketPath}` +
      (demoRoot ? ` with demo data under ${demoRoot}` : "") +
      (values.hostile ? " in HOSTILE mode (it leaks every credential it sees)" : ""),
  );
  const stopped = Promise.withResolvers<void>();
  const stop = () => stopped.resolve();
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await stopped.promise;
  Deno.removeSignalListener("SIGINT", stop);
  Deno.removeSignalListener("SIGTERM", stop);
  await sim.close();
  if (demoRoot) await Deno.remove(demoRoot, { recursive: true }).catch(() => {});
  return 0;
}

Deno.exit(await main());
