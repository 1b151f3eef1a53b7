/**
 * The bench's timing of the README's test command (`deno task test`), in a fresh clone of this
 * checkout's HEAD (Deno's download cache may be warm; everything the task builds or transpiles
 * is not): once on its own, then again in another fresh clone beside CPU-bound processes, four
 * per core, as a busy laptop would have them. `deno task bench` writes what it measured; run
 * alone, this prints it and writes nothing:
 *
 *   deno run -A scripts/bench/test_time.ts
 */
import { fileURLToPath } from "node:url";
import { childEnv } from "../../src/shared/permissions.ts";
import type { BenchRun } from "./report.ts";

/** CPU-bound processes per core beside the busy run (a busy laptop, not an idle one). */
export const BURNERS_PER_CORE = 4;

/** How many CPU-bound processes the busy run starts on a machine of `cores` cores. */
export function burnersFor(cores: number): number {
  return BURNERS_PER_CORE * cores;
}

type Timing = { seconds: number; passed: number; failed: number };

/** Quiet, then (unless `busy` is false) beside `burnersFor(cores)` CPU-bound processes. */
export async function timeTestCommand(
  checkout: string,
  { busy = true, cores = navigator.hardwareConcurrency } = {},
): Promise<BenchRun["testSuite"]> {
  console.error("the test command: deno task test in a fresh clone…");
  const quiet = await timedInClone(checkout);
  let beside: BenchRun["testSuite"]["busy"] = null;
  if (busy) {
    const burners = burnersFor(cores);
    console.error(`the test command again, beside ${burners} CPU-bound processes…`);
    const spinning = Array.from({ length: burners }, () =>
      new Deno.Command(Deno.execPath(), {
        args: ["eval", "for (;;) {}"],
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn());
    try {
      beside = { burners, ...await timedInClone(checkout) };
    } finally {
      for (const burner of spinning) burner.kill("SIGKILL");
      await Promise.all(spinning.map((burner) => burner.status));
    }
  }
  return {
    date: new Date().toISOString().slice(0, 10),
    command: "deno task test",
    ...quiet,
    busy: beside,
  };
}

/** `deno task test` in a fresh clone of `checkout`'s HEAD: its time and its counts. */
async function timedInClone(checkout: string): Promise<Timing> {
  const place = await Deno.realPath(await Deno.makeTempDir({ prefix: "portreeve-bench-clone-" }));
  try {
    const clone = `${place}/portreeve-mcp`;
    const cloned = await new Deno.Command("git", {
      args: ["clone", "--quiet", "--no-hardlinks", checkout, clone],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!cloned.success) {
      throw new Error(`git clone failed: ${new TextDecoder().decode(cloned.stderr)}`);
    }
    const started = performance.now();
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "test"],
      cwd: clone,
      env: childEnv({ NO_COLOR: "1" }),
      stdout: "piped",
      stderr: "piped",
    }).output();
    const seconds = (performance.now() - started) / 1000;
    const text = new TextDecoder().decode(out.stdout); // NO_COLOR: no escapes to strip
    const summary = [...text.matchAll(/^(?:ok|FAILED) \| (\d+) passed.*\| (\d+) failed/gm)].at(-1);
    if (summary === undefined) {
      throw new Error(`deno task test printed no summary line:\n${text.slice(-2_000)}`);
    }
    const failures = text.slice(text.indexOf(" FAILURES "));
    if (Number(summary[2]) > 0) {
      console.error(`deno task test failed:\n${failures.slice(0, 4_000)}`);
    }
    return { seconds, passed: Number(summary[1]), failed: Number(summary[2]) };
  } finally {
    await Deno.remove(place, { recursive: true });
  }
}

if (import.meta.main) {
  const checkout = fileURLToPath(new URL("../../", import.meta.url));
  console.log(JSON.stringify(await timeTestCommand(checkout), null, 2));
}
