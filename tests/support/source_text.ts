/** Reading TypeScript source as text: what is code, what is a string, what is a comment. */

/**
 * The source with comments removed and every string literal replaced by `"#N"`, N indexing
 * `strings`, so what is spelled inside a string or a comment is not taken for code (an
 * import), and what a comment says is not taken for a literal (an error code).
 */
export function tokenise(text: string): { code: string; strings: string[] } {
  let code = "";
  const strings: string[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    const next = text[i + 1];
    if (char === "/" && next === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (char === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      const comment = text.slice(i, end === -1 ? text.length : end + 2);
      code += comment.replace(/[^\n]/g, " ");
      i += comment.length;
    } else if (char === '"' || char === "'" || char === "`") {
      // A plain string also ends at the line's end, which keeps a quote inside a regular
      // expression from swallowing the rest of the file.
      let j = i + 1;
      while (j < text.length && text[j] !== char && (char === "`" || text[j] !== "\n")) {
        j += text[j] === "\\" ? 2 : 1;
      }
      const body = text.slice(i + 1, Math.min(j, text.length));
      code += `${char}#${strings.length}${char}` + body.replace(/[^\n]/g, "");
      strings.push(body);
      i = j + 1;
    } else {
      code += char;
      i++;
    }
  }
  return { code, strings };
}

/** Every `.ts` file under `dir` (absolute), as paths relative to it, sorted. */
export async function sourceFiles(dir: string, under = ""): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(`${dir}/${under}`)) {
    const path = under === "" ? entry.name : `${under}/${entry.name}`;
    if (entry.isDirectory) files.push(...await sourceFiles(dir, path));
    else if (path.endsWith(".ts")) files.push(path);
  }
  return files.sort();
}
