/** POSIX shell quoting for the printed setup commands. */

const BARE_WORD = /^[A-Za-z0-9_./:@%+=,-]+$/;

/** A word bash, dash and zsh all read back as exactly `word`. */
export function shellQuote(word: string): string {
  if (BARE_WORD.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

export function shellJoin(words: readonly string[]): string {
  return words.map(shellQuote).join(" ");
}
