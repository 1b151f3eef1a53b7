/**
 * Structured logs: one JSON object per line on stderr (never stdout), via @logtape/logtape.
 * LogTape is loaded on the first record that passes the level, not at start-up: a quiet
 * bridge never pays for it, and a host gets its handshake a few milliseconds sooner.
 */
import type { LogRecord } from "@logtape/logtape";

export const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;
export type LogLevelName = typeof LOG_LEVELS[number];

type Properties = Record<string, unknown>;
export interface Log {
  error(message: string, properties?: Properties): void;
  warn(message: string, properties?: Properties): void;
  info(message: string, properties?: Properties): void;
  debug(message: string, properties?: Properties): void;
}

const ROOT = "portreeve-mcp";
let threshold: number = LOG_LEVELS.indexOf("info");
let configured: LogLevelName = "info";
let logtape: Promise<typeof import("@logtape/logtape")> | undefined;
let pending: Promise<void> = Promise.resolve();
let scrubLine: (line: string) => string = (line) => line;
const encoder = new TextEncoder();

export function configureLogging(level: LogLevelName): void {
  configured = level;
  threshold = LOG_LEVELS.indexOf(level);
}

/** Every log line passes `scrub` (a JSON line in, a JSON line out) on its way to stderr. */
export function scrubLogLines(scrub: (line: string) => string): void {
  scrubLine = scrub;
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
  logtape ??= import("@logtape/logtape").then((lib) => {
    const sink = (record: LogRecord) => {
      const bytes = encoder.encode(scrubLine(lib.jsonLinesFormatter(record)));
      let written = 0;
      try {
        while (written < bytes.length) written += Deno.stderr.writeSync(bytes.subarray(written));
      } catch {
        // The host closed stderr; losing a log line must not take the bridge down.
      }
    };
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
  return logtape;
}
