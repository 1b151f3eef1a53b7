/**
 * Structured logs: one JSON object per line on stderr (never stdout), via @logtape/logtape.
 * Nothing is written until `configureLogging` is given the level and the scrubber every line
 * passes: there is no way to turn logging on without one. LogTape is loaded on the first
 * record that passes the level, not at start-up: a quiet bridge never pays for it, and a host
 * gets its handshake a few milliseconds sooner.
 */
import type { LogRecord } from "@logtape/logtape";

export const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;
export type LogLevelName = typeof LOG_LEVELS[number];

type Properties = Record<string, unknown>;
interface Log {
  error(message: string, properties?: Properties): void;
  warn(message: string, properties?: Properties): void;
  info(message: string, properties?: Properties): void;
  debug(message: string, properties?: Properties): void;
}

/** Where log lines go: each one scrubbed, then written whole. */
interface LogOutput {
  /** A JSON line in, a JSON line out, with every credential this process holds masked. */
  scrub: (line: string) => string;
  /** Writes one line's bytes whole (default: to stderr). */
  write?: (bytes: Uint8Array) => void;
}

const ROOT = "portreeve-mcp";
/** Below every level: until logging is configured, no record passes. */
let threshold = -1;
let configured: LogLevelName = "info";
let logtape: Promise<typeof import("@logtape/logtape")> | undefined;
let pending: Promise<void> = Promise.resolve();
/** The sink's line writer, built by `configureLogging` around its scrubber. */
let writeLine: (line: string) => void = () => {};
const encoder = new TextEncoder();

/**
 * Records at `level` and above from now on go to `output`, each line through its scrubber.
 * Configuring again replaces both (LogTape, if loaded, takes the new level at once).
 */
export function configureLogging(level: LogLevelName, output: LogOutput): void {
  const { scrub, write = writeStderr } = output;
  configured = level;
  threshold = LOG_LEVELS.indexOf(level);
  writeLine = (line) => write(encoder.encode(scrub(line)));
  if (logtape) logtape = configure(logtape);
}

export function logger(...category: string[]): Log {
  const at = (level: LogLevelName) => (message: string, properties?: Properties) => {
    if (LOG_LEVELS.indexOf(level) > threshold) return;
    pending = pending.then(async () => {
      const lib = await load();
      const log = lib.getLogger([ROOT, ...category]);
      if (level === "error") log.error(message, properties ?? {});
      else if (level === "warn") log.warn(message, properties ?? {});
      else if (level === "info") log.info(message, properties ?? {});
      else log.debug(message, properties ?? {});
    }).catch(() => {/* logging must never take the bridge down */});
  };
  return { error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug") };
}

/** Waits until every record so far is written (call before exiting). */
export function flushLogs(): Promise<void> {
  return pending;
}

function load(): Promise<typeof import("@logtape/logtape")> {
  logtape ??= configure(import("@logtape/logtape"));
  return logtape;
}

/** LogTape, configured for the current level, writing through the current line writer. */
function configure(
  loading: Promise<typeof import("@logtape/logtape")>,
): Promise<typeof import("@logtape/logtape")> {
  return loading.then((lib) => {
    const sink = (record: LogRecord) => writeLine(lib.jsonLinesFormatter(record));
    lib.configureSync({
      reset: true,
      sinks: { stderr: sink },
      loggers: [
        {
          category: [ROOT],
          lowestLevel: configured === "warn" ? "warning" : configured,
          sinks: ["stderr"],
        },
        { category: ["logtape", "meta"], lowestLevel: "error", sinks: ["stderr"] },
      ],
    });
    return lib;
  });
}

function writeStderr(bytes: Uint8Array): void {
  let written = 0;
  try {
    while (written < bytes.length) written += Deno.stderr.writeSync(bytes.subarray(written));
  } catch {
    // The host closed stderr; losing a log line must not take the bridge down.
  }
}
