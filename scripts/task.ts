/**
 * The runner every deno.json task goes through (`deno run … scripts/task.ts NAME ARGS…`).
 * `--help` or `-h` among ARGS prints the task's description (from deno.json), its usage and
 * what it runs, and runs nothing; a task whose one program prints its own help gets ARGS after
 * the description, and that program answers.
 * Otherwise the steps of scripts/tasks.ts run in order, ARGS going to the last one as
 * `deno task` would pass them, and the first failure ends the task with its exit code.
 */
import config from "../deno.json" with { type: "json" };
import { shellJoin } from "../src/shared/shell.ts";
import { readerForm, taskCommand, taskUsage } from "../src/shared/hints.ts";
import { tlsHint } from "../src/shared/tls_hint.ts";
import { type Step, type TaskDefinition, TASKS } from "./tasks.ts";

/** What a task may do to the world; tests replace it to see that `--help` does nothing. */
export interface Effects {
  /** Runs Deno with `args`, stdio inherited; resolves to its exit code. */
  deno(args: string[]): Promise<number>;
  remove(path: string): Promise<void>;
  print(text: string): void;
}

/** Whether ARGS ask for help (before any `--`, after which arguments belong to a program). */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === "--help" || arg === "-h");
}

const DESCRIPTIONS: Record<string, { description?: string }> = config.tasks;

/** Runs task `name` with `args`; resolves to the exit code. */
export async function runTask(name: string, args: string[], effects: Effects): Promise<number> {
  const definition = TASKS[name];
  if (definition === undefined) {
    console.error(`task.ts: no task "${name}"; deno.json lists ${Object.keys(TASKS).join(", ")}`);
    return 2;
  }
  if (wantsHelp(args)) return await help(name, definition, args, effects);
  if (definition.args === "" && definition.help !== "command" && args.length > 0) {
    // Refused before any step runs: a bundle or a regeneration must not start for a typo.
    console.error(
      `task.ts: ${name} takes no arguments (got ${shellJoin(args)}); see \`${
        taskCommand(name, ["--help"]).command
      }\``,
    );
    return 2;
  }
  return await runSteps(definition.steps, args, effects);
}

async function runSteps(steps: readonly Step[], args: string[], effects: Effects) {
  for (const [index, step] of steps.entries()) {
    const extra = index === steps.length - 1 ? args : [];
    const code = await runStep(step, extra, effects);
    if (code !== 0) return code;
  }
  return 0;
}

async function runStep(step: Step, extra: string[], effects: Effects): Promise<number> {
  if ("deno" in step) return await effects.deno([...step.deno, ...extra]);
  if ("task" in step) return await runSteps(TASKS[step.task].steps, extra, effects);
  await effects.remove(step.remove);
  return 0;
}

async function help(name: string, definition: TaskDefinition, args: string[], effects: Effects) {
  const description = DESCRIPTIONS[name]?.description ?? "";
  if (definition.help === "command") {
    // Its one step's program answers --help itself, from wherever among the arguments.
    effects.print(`${description}\n`);
    return await runStep(definition.steps[0], args, effects);
  }
  const usage = `usage: ${taskUsage(name)}${definition.args ? ` ${definition.args}` : ""}`;
  const steps = definition.steps.map((step, index) => {
    const extra = index === definition.steps.length - 1 && definition.args ? " [ARGS...]" : "";
    return `  ${describeStep(step)}${extra}`;
  });
  effects.print(
    `${usage}\n\n${description}\n\n${definition.help}\n\nRuns, in order (stopping at the ` +
      `first that fails, whose exit code it returns):\n${steps.join("\n")}`,
  );
  return 0;
}

function describeStep(step: Step): string {
  if ("deno" in step) return shellJoin(["deno", ...step.deno]);
  if ("task" in step) return `the ${step.task} task`;
  return `rm -rf ${step.remove}`;
}

/** How often a runner checks that the process that started it (`deno task`) is still there. */
const PARENT_POLL_MS = 500;

/**
 * Deno with `args` as a child that gets our SIGINT and SIGTERM, stdio inherited; resolves to
 * its exit code (1 for a death by signal). When our own parent goes away (a killed
 * `deno task`), the child gets SIGTERM: a simulator or a bridge must not outlive the command
 * a person stopped. The confined runner starts the bridge the same way.
 */
export async function denoChild(
  args: readonly string[],
  again?: () => string,
): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...args],
    stdin: "inherit",
    stdout: "inherit",
    stderr: "piped",
  }).spawn();
  // Passed on as it comes; the last few KiB are kept to see why a step failed.
  const told = passOn(child.stderr);
  const forward = (signal: Deno.Signal) => () => child.kill(signal);
  const listeners = (["SIGINT", "SIGTERM"] as const).map((signal) => {
    const listener = forward(signal);
    Deno.addSignalListener(signal, listener);
    return { signal, listener };
  });
  const parent = Deno.ppid;
  const orphaned = setInterval(() => {
    if (Deno.ppid === parent) return;
    try {
      child.kill("SIGTERM");
    } catch {
      // It has just exited on its own.
    }
  }, PARENT_POLL_MS);
  try {
    const status = await child.status;
    const tail = await told;
    const hint = status.success || again === undefined ? undefined : tlsHint(tail, again);
    if (hint) console.error(`\n${hint}`);
    return status.success ? 0 : (status.code || 1);
  } finally {
    clearInterval(orphaned);
    for (const { signal, listener } of listeners) Deno.removeSignalListener(signal, listener);
  }
}

/** Copies `stream` to our stderr as it comes; resolves to its last few KiB, as text. */
async function passOn(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let tail = "";
  for await (const chunk of stream) {
    for (let done = 0; done < chunk.length;) {
      done += await Deno.stderr.write(chunk.subarray(done));
    }
    tail = (tail + decoder.decode(chunk, { stream: true })).slice(-8_192);
  }
  return tail;
}

/** The real effects: Deno started as a child that gets our signals, stdio inherited. */
const REAL: Effects = {
  deno: (args) => denoChild(args, retryLine),
  async remove(path) {
    await Deno.remove(path, { recursive: true }).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  },
  print: (text) => console.log(text),
};

/** This task again, as the person typed it, with Deno told to trust the system's certificates. */
function retryLine(): string {
  const [name = "", ...args] = Deno.args;
  try {
    return taskCommand(name, args, readerForm(), { DENO_TLS_CA_STORE: "system" }).command;
  } catch {
    return `DENO_TLS_CA_STORE=system deno task ${name}`;
  }
}

if (import.meta.main) {
  const [name = "", ...args] = Deno.args;
  Deno.exit(await runTask(name, args, REAL));
}
