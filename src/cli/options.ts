/** Parsing and checks of command-line options shared by `serve`, `config` and `doctor`. */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { choiceOf, labelOf } from "../shared/options.ts";

/** Where a command prints: the terminal, or a test's buffers. */
export interface CommandIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** A mistake in how a command was invoked: exit 2 with one line on stderr. */
export class UsageError extends Error {}

/**
 * Parses `args` strictly against `options`. node:util reports bad argv as a TypeError with an
 * ERR_PARSE_ARGS_* code and several sentences; this keeps the first, which says what is wrong,
 * and points at `help`, the pasteable command that prints the command's help.
 */
export function parseOptions<T extends ParseArgsOptionsConfig>(
  args: string[],
  options: T,
  help: string,
) {
  try {
    return parseArgs({ args, options, strict: true as const, allowPositionals: false as const })
      .values;
  } catch (error) {
    if (error instanceof TypeError && String(Reflect.get(error, "code")).startsWith("ERR_PARSE")) {
      throw new UsageError(`${firstSentence(error.message)}; see \`${help}\``);
    }
    throw error;
  }
}

function firstSentence(message: string): string {
  return message.split("\n")[0].split(". ")[0].replace(/\.$/, "");
}

/** `value` if it is one of `allowed`, else a usage error naming the flag and the choices. */
export function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  const found = choiceOf(value, allowed);
  if (found === undefined) {
    throw new UsageError(`${flag} must be one of ${allowed.join(", ")} (got "${value}")`);
  }
  return found;
}

/** Returns the trimmed label, or throws with a message saying what is allowed. */
export function checkLabel(raw: string): string {
  const label = labelOf(raw);
  if (label === undefined) {
    throw new UsageError(
      `Invalid label "${raw}": use 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit.`,
    );
  }
  return label;
}
