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
