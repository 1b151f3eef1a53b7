/** Programs the tests run to completion, and what they said. */

export interface Finished {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Start from `env` alone instead of adding it to this process's environment. */
  clearEnv?: boolean;
  /** Standard input: nothing (the default) or closed at once ("null"). */
  stdin?: "null";
}

const decoder = new TextDecoder();

/** Runs `command` with `args` until it exits; its exit code and its output as text. */
export async function finished(
  command: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<Finished> {
  const out = await new Deno.Command(command, {
    args: [...args],
    cwd: options.cwd,
    env: options.env,
    clearEnv: options.clearEnv,
    stdin: options.stdin,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** The running Deno with `args`, until it exits. */
export function denoFinished(args: readonly string[], options: RunOptions = {}): Promise<Finished> {
  return finished(Deno.execPath(), args, options);
}

/** Whether anything is at `path` (a link counts, not followed). */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
