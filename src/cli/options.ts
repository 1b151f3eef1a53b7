/** Checks of command-line options shared by `serve`, `config` and `doctor`. */

/** A mistake in how a command was invoked: exit 2 with one line on stderr. */
export class UsageError extends Error {}

/** `value` if it is one of `allowed`, else a usage error naming the flag and the choices. */
export function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  const found = allowed.find((choice) => choice === value);
  if (found === undefined) {
    throw new UsageError(`${flag} must be one of ${allowed.join(", ")} (got "${value}")`);
  }
  return found;
}

/**
 * Bridge labels travel to the daemon in every POST's origin and into host configs and shell
 * commands, so they are kept to a safe, short alphabet.
 */
export const LABEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Returns the trimmed label, or throws with a message saying what is allowed. */
export function checkLabel(raw: string): string {
  const label = raw.trim();
  if (!LABEL_PATTERN.test(label)) {
    throw new RangeError(
      `Invalid label "${raw}": use 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit.`,
    );
  }
  return label;
}
