/**
 * The rules for values that `serve`, `config` and `doctor` accept and that `config` writes into
 * host entries. Each command words its own error; the rules themselves live only here.
 */

/**
 * Bridge labels travel to the daemon in every POST's origin and into host configs and shell
 * commands, so they are kept to a safe, short alphabet.
 */
export const LABEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The trimmed label, or undefined when it breaks `LABEL_PATTERN`. */
export function labelOf(raw: string): string | undefined {
  const label = raw.trim();
  return LABEL_PATTERN.test(label) ? label : undefined;
}

/** `value` typed as one of `allowed`, or undefined when it is none of them. */
export function choiceOf<T extends string>(value: string, allowed: readonly T[]): T | undefined {
  return allowed.find((choice) => choice === value);
}
