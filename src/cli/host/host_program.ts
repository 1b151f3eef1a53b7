/**
 * Runs a host's own program (`claude mcp get portreeve`, `gemini mcp add …`) and reads what it
 * printed. Its environment is the caller's, as when a person types the command; it reads no
 * input. A program that is not on PATH, or that the grant does not cover, is said so, not thrown.
 */

export type ProgramRun =
  | { kind: "ran"; code: number; stdout: string; stderr: string }
  | { kind: "missing"; program: string }
  | { kind: "denied"; program: string }
  | { kind: "stopped"; program: string; afterMs: number };

/**
 * How long a host's own command may take: `claude mcp get` health-checks the server it shows,
 * and Claude Code gives a server 30 seconds to start by default.
 */
const HOST_PROGRAM_BOUND_MS = 90_000;

export async function runProgram(
  argv: readonly string[],
  boundMs = HOST_PROGRAM_BOUND_MS,
): Promise<ProgramRun> {
  const [program, ...args] = argv;
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(program, { args, stdin: "null", stdout: "piped", stderr: "piped" })
      .spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { kind: "missing", program };
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      return { kind: "denied", program };
    }
    throw error;
  }
  let stopped = false;
  const timer = setTimeout(() => {
    stopped = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // It has just exited.
    }
  }, boundMs);
  try {
    const output = await child.output();
    if (stopped) return { kind: "stopped", program, afterMs: boundMs };
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return {
      kind: "ran",
      code: output.code,
      stdout: text(output.stdout),
      stderr: text(output.stderr),
    };
  } finally {
    clearTimeout(timer);
  }
}

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/** A program's output without its terminal colours. */
export function plain(text: string): string {
  return text.replace(ANSI, "");
}

/** One line for a person about a run that gave no answer to read. */
export function unanswered(run: Exclude<ProgramRun, { kind: "ran" }>): string {
  switch (run.kind) {
    case "missing":
      return `\`${run.program}\` is not on PATH`;
    case "denied":
      return `this process may not run \`${run.program}\` (its permission grant)`;
    case "stopped":
      return `\`${run.program}\` did not finish in ${run.afterMs / 1000} s and was stopped`;
  }
}
