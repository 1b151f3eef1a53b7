/** Structured logs: one JSON object per line on stderr, never stdout. */
import {
  configureSync,
  getLogger,
  jsonLinesFormatter,
  type Logger,
  type LogRecord,
} from "@logtape/logtape";

export const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;
export type LogLevelName = typeof LOG_LEVELS[number];

const encoder = new TextEncoder();

function stderrSink(record: LogRecord): void {
  const bytes = encoder.encode(jsonLinesFormatter(record));
  let written = 0;
  try {
    while (written < bytes.length) written += Deno.stderr.writeSync(bytes.subarray(written));
  } catch {
    // The host closed stderr; losing a log line must not take the bridge down.
  }
}

export function configureLogging(level: LogLevelName): void {
  configureSync({
    reset: true,
    sinks: { stderr: stderrSink },
    loggers: [
      {
        category: ["portreeve-mcp"],
        lowestLevel: level === "warn" ? "warning" : level,
        sinks: ["stderr"],
      },
      { category: ["logtape", "meta"], lowestLevel: "error", sinks: ["stderr"] },
    ],
  });
}

export function logger(...category: string[]): Logger {
  return getLogger(["portreeve-mcp", ...category]);
}
