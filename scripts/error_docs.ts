/**
 * The code table of docs/errors.md, written from src/shared/error_codes.ts by `deno task gen` (a test
 * keeps it current): every code with whose doing it is and its next step, then every reason
 * with its own step.
 */
import { ERROR_CODES, type Fault, OUTCOME_UNKNOWN } from "../src/shared/error_codes.ts";
import { withSection } from "./doc_blocks.ts";

const WHOSE: Record<Fault, string> = {
  arguments: "the call's arguments",
  state: "the registry's state",
  person: "the person or their host",
  setup: "the setup (PortReeve, versions, permissions)",
  daemon: "the daemon",
  bridge: "this bridge",
};

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

function errorTables(): string[] {
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
  ];
}

/** `doc` with its error-codes block replaced by the current tables. */
export function withErrorTables(doc: string): string {
  return withSection(doc, "error-codes", errorTables());
}
