/**
 * The code table of docs/errors.md, written from src/shared/error_codes.ts by `deno task gen` (a test
 * keeps it current): every code with whose doing it is and its next step, then every reason
 * with its own step.
 */
import { ERROR_CODES, type Fault, OUTCOME_UNKNOWN } from "../src/shared/error_codes.ts";

export const TABLE_START = "<!-- error-codes:start -->";
export const TABLE_END = "<!-- error-codes:end -->";

const WHOSE: Record<Fault, string> = {
  arguments: "the call's arguments",
  state: "the registry's state",
  person: "the person or their host",
  setup: "the setup (PortReeve, versions, permissions)",
  daemon: "the daemon",
  bridge: "this bridge",
};

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

export function errorTables(): string {
  const codes = Object.entries(ERROR_CODES).map(([code, entry]) =>
    `| \`${code}\` | ${WHOSE[entry.fault]} | ${
      entry.retryable === "varies" ? "varies" : entry.retryable ? "yes" : "no"
    } | ${cell(entry.meaning)} | ${cell(entry.nextStep)} |`
  );
  const reasons = Object.entries(ERROR_CODES).flatMap(([code, entry]) =>
    Object.entries(entry.reasons ?? {}).map(([reason, { from, nextStep }]) =>
      `| \`${code}\` | \`${reason}\` | ${from} | ${
        cell(typeof nextStep === "string" ? nextStep : nextStep({}))
      } |`
    )
  );
  const unknown = OUTCOME_UNKNOWN.nextStep;
  const example = typeof unknown === "string" ? unknown : unknown({
    checkWith: "portreeve_port_inspect",
    checkHow: "on the leased port",
  });
  return [
    TABLE_START,
    "",
    "| Code | Whose doing | Retryable | What it means | Next step |",
    "| --- | --- | --- | --- | --- |",
    ...codes,
    "",
    "| Code | Reason (`details.reason`, `receiptCode` or `documentCode`) | Sent by | Next step |",
    "| --- | --- | --- | --- |",
    ...reasons,
    `| any | \`details.outcome: "unknown"\` | bridge | ${
      cell(example)
    } (the read named in \`details.checkWith\`) |`,
    "",
    TABLE_END,
  ].join("\n");
}

/** Replaces the marked section of `doc` with the current tables. */
export function withErrorTables(doc: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start === -1 || end === -1) throw new Error("docs/errors.md has no error-codes markers");
  return doc.slice(0, start) + errorTables() + doc.slice(end + TABLE_END.length);
}
