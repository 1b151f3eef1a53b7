/**
 * Keeps stdout for MCP frames only. Installed before anything else is imported, so no
 * dependency can print a stray line that would break the host's JSON-RPC stream: every
 * `console.*` method writes to stderr instead.
 */
const encoder = new TextEncoder();
let scrub: (text: string) => string = (text) => text;

/** Every console line passes `scrubber` (plain text in and out) on its way to stderr. */
export function scrubConsole(scrubber: (text: string) => string): void {
  scrub = scrubber;
}

function writeStderr(raw: string): void {
  const text = scrub(raw);
  const bytes = encoder.encode(text.endsWith("\n") ? text : text + "\n");
  let written = 0;
  while (written < bytes.length) written += Deno.stderr.writeSync(bytes.subarray(written));
}

export function installStdoutGuard(): void {
  const toStderr = (...args: unknown[]) => {
    writeStderr(args.map((a) => typeof a === "string" ? a : Deno.inspect(a)).join(" "));
  };
  for (
    const method of ["log", "info", "debug", "warn", "error", "trace", "dir", "table"] as const
  ) {
    console[method] = toStderr;
  }
}

installStdoutGuard();
