/** The host ids in help texts: one list, wrapped to the width the help is written for. */

/** `items` joined by `separator`, broken into lines of at most `width` characters after `indent`. */
export function wrappedList(
  items: readonly string[],
  separator: string,
  indent: string,
  width = 92,
): string {
  const lines: string[] = [];
  let line = "";
  for (const [i, item] of items.entries()) {
    const word = i < items.length - 1 ? `${item}${separator.trimEnd()}` : item;
    const next = line === "" ? word : `${line} ${word}`;
    if (line !== "" && indent.length + next.length > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line !== "") lines.push(line);
  return lines.join(`\n${indent}`);
}
