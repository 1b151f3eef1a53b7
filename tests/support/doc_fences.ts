/** The documents users read (the README and every page of docs/), their fences and words. */

const ROOT = new URL("../../", import.meta.url);

/** The documents users read: the README and every page of docs/. */
export async function documents(): Promise<Map<string, string>> {
  const docs = new Map([["README.md", await Deno.readTextFile(new URL("README.md", ROOT))]]);
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (!entry.name.endsWith(".md")) continue;
    docs.set(`docs/${entry.name}`, await Deno.readTextFile(new URL(`docs/${entry.name}`, ROOT)));
  }
  return docs;
}

export interface Fence {
  language: string;
  lines: string[];
}

export function fences(markdown: string): Fence[] {
  const found: Fence[] = [];
  let open: Fence | undefined;
  for (const line of markdown.split("\n")) {
    if (!line.startsWith("```")) {
      open?.lines.push(line);
    } else if (open === undefined) {
      open = { language: line.slice(3).trim(), lines: [] };
    } else {
      found.push(open);
      open = undefined;
    }
  }
  return found;
}

/** The words of a command line: quotes removed, no splitting inside them. */
export function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}
