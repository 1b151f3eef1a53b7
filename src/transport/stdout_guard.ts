/**
 * Keeps stdout for MCP frames only. Installed before anything else is imported, so no
 * dependency can print a stray line that would break the host's JSON-RPC stream: every
 * `console.*` method writes to stderr instead. `serve` installs it again with the scrubber of
 * the credentials it will hold, before it holds any: the console writer is built around its
 * scrubber, so there is no console that writes unscrubbed once a credential exists.
 */
const encoder = new TextEncoder();

/** Where console lines go and what each passes first (plain text in and out). */
interface ConsoleOutput {
  scrub: (text: string) => string;
  /** Writes one line's bytes whole (default: to stderr). */
  write?: (bytes: Uint8Array) => void;
}

function writeStderr(bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += Deno.stderr.writeSync(bytes.subarray(written));
}

/** Every `console.*` method, from now on, writes one scrubbed line to `output`. */
export function installStdoutGuard(output: ConsoleOutput): void {
  const { scrub, write = writeStderr } = output;
  const toStderr = (...args: unknown[]) => {
    const text = scrub(args.map((a) => typeof a === "string" ? a : Deno.inspect(a)).join(" "));
    write(encoder.encode(text.endsWith("\n") ? text : text + "\n"));
  };
  for (
    const method of ["log", "info", "debug", "warn", "error", "trace", "dir", "table"] as const
  ) {
    console[method] = toStderr;
  }
}

// At import, before anything can hold a credential: nothing to scrub yet.
installStdoutGuard({ scrub: (text) => text });
