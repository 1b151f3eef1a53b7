/**
 * Sits between a host and the bridge on stdio and writes every newline-delimited frame, in
 * order and marked with its direction and arrival time, to a log file, each before passing it
 * on; the bytes pass through unchanged. The
 * approval sessions start the printed command through it to see what the host declared and
 * answered without changing the bridge. Usage: stdio_tap.ts LOG COMMAND [ARGS...]
 */
const [logPath, command, ...args] = Deno.args;
if (logPath === undefined || command === undefined) {
  console.error("usage: stdio_tap.ts LOG COMMAND [ARGS...]");
  Deno.exit(2);
}

const log = await Deno.open(logPath, { write: true, create: true, append: true });
const encoder = new TextEncoder();
/**
 * Written whole before the frame goes on: whoever reacts to a frame (the host, then the fake
 * model it asks) finds it in the log already.
 */
function record(from: "host" | "server", frame: string): void {
  const line = encoder.encode(`${JSON.stringify({ from, at: Date.now(), frame })}\n`);
  try {
    let written = 0;
    while (written < line.length) written += log.writeSync(line.subarray(written));
  } catch {
    // A log that cannot be written loses the record, never the frame.
  }
}

/** Copies `source` to `sink` whole, recording each complete line it carried. */
async function pipe(
  source: ReadableStream<Uint8Array>,
  sink: WritableStream<Uint8Array>,
  from: "host" | "server",
): Promise<void> {
  const decoder = new TextDecoder();
  const writer = sink.getWriter();
  let pending = "";
  try {
    for await (const chunk of source) {
      pending += decoder.decode(chunk, { stream: true });
      let end = pending.indexOf("\n");
      while (end >= 0) {
        if (end > 0) record(from, pending.slice(0, end));
        pending = pending.slice(end + 1);
        end = pending.indexOf("\n");
      }
      await writer.write(chunk);
    }
  } catch {
    // The other side went away; closing below tells the next process.
  } finally {
    if (pending.trim() !== "") record(from, pending);
    await writer.close().catch(() => {});
  }
}

const child = new Deno.Command(command, {
  args,
  stdin: "piped",
  stdout: "piped",
  stderr: "inherit",
}).spawn();
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.addSignalListener(signal, () => {
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  });
}
const toServer = pipe(Deno.stdin.readable, child.stdin, "host");
const toHost = pipe(child.stdout, Deno.stdout.writable, "server");
const status = await child.status;
await toHost;
await Promise.race([toServer, new Promise((resolve) => setTimeout(resolve, 100))]);
log.close();
Deno.exit(status.code);
