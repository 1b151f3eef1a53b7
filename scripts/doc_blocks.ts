/**
 * Generated text inside README.md and docs/: blocks between `<!-- NAME:start -->` and
 * `<!-- NAME:end -->`, and files written whole. Every block and file is declared here with
 * the command that writes it; a test fails on a marker nobody declared, on a declared block
 * that is missing, and on prose outside these that types a figure a generator owns.
 */

/** Who writes what: file → block name → the command that rewrites it. */
export const GENERATED_BLOCKS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "README.md": {
    "bench-summary": "deno task bench",
    "test-time": "deno task bench",
    "works-with": "HOSTS_UPDATE_DOCS=1 deno task test:hosts",
    "commands": "deno task gen",
    "toolsets": "deno task gen",
  },
  "CONTRIBUTING.md": {
    "budgets": "deno task gen",
  },
  "docs/tools.md": {
    "toolsets": "deno task gen",
    "tool-reference": "deno task gen",
  },
  "docs/confinement.md": {
    "permission-flags": "deno task gen",
  },
  "docs/results.md": {
    "default-views": "deno task gen",
  },
  "docs/approval.md": {
    "approval-hosts": "HOSTS_UPDATE_DOCS=1 deno task test:hosts",
  },
  "docs/hosts.md": {
    "host-paths": "HOSTS_UPDATE_DOCS=1 deno task test:hosts",
    "host-cuts": "HOSTS_UPDATE_DOCS=1 deno task test:hosts",
    "host-results": "HOSTS_UPDATE_DOCS=1 deno task test:hosts",
  },
  "docs/limits.md": {
    "input-bounds": "deno task gen",
    "tool-inputs": "deno task gen",
    "answer-bounds": "deno task gen",
    "measured-frames": "RELIABILITY_UPDATE_DOCS=1 deno task test:reliability",
  },
  "docs/errors.md": {
    "error-codes": "deno task gen",
  },
  "docs/reliability.md": {
    "reliability-figures": "RELIABILITY_UPDATE_DOCS=1 deno task test:reliability",
  },
};

/** Files written whole: file → the command that writes it. */
export const GENERATED_FILES: Readonly<Record<string, string>> = {
  "docs/effects.md": "deno task gen",
  "docs/performance.md": "deno task bench",
  "docs/performance.json": "deno task bench",
};

const startMarker = (name: string) => `<!-- ${name}:start -->`;
const endMarker = (name: string) => `<!-- ${name}:end -->`;

/** `doc` with block `name` set to `lines`, a blank line either side (as `deno fmt` keeps it). */
export function withSection(doc: string, name: string, lines: readonly string[]): string {
  const start = startMarker(name);
  const end = endMarker(name);
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from === -1 || to === -1 || to < from) throw new Error(`no ${name} markers`);
  return doc.slice(0, from) + [start, "", ...lines, "", end].join("\n") +
    doc.slice(to + end.length);
}

/** The text between the markers of block `name`, trimmed; undefined when it has none. */
export function sectionOf(doc: string, name: string): string | undefined {
  const from = doc.indexOf(startMarker(name));
  const to = doc.indexOf(endMarker(name));
  if (from === -1 || to === -1 || to < from) return undefined;
  return doc.slice(from + startMarker(name).length, to).trim();
}

/** Every block name that has a start or an end marker in `doc`, in order, with repeats. */
export function markerNames(doc: string): string[] {
  return [...doc.matchAll(/<!-- ([a-z0-9-]+):(start|end) -->/g)].map((m) => `${m[1]}:${m[2]}`);
}

/** `doc` with every generated block's content left out (the markers stay). */
export function withoutSections(doc: string): string {
  return doc.replace(/(<!-- ([a-z0-9-]+):start -->)[\s\S]*?(<!-- \2:end -->)/g, "$1\n$3");
}

/** `deno fmt` pads markdown tables; compare the text, not the padding. */
export function normaliseMarkdown(text: string): string {
  return text.replace(/-{3,}/g, "---").replace(/[ \t]+/g, " ").replace(/\n(\s*\n)+/g, "\n");
}

/** Writes `text` to `path`, then leaves it as `deno fmt` would, so `deno task check` passes. */
export async function writeFormatted(path: string | URL, text: string): Promise<void> {
  await Deno.writeTextFile(path, text);
  const file = path instanceof URL ? path.pathname : path;
  const fmt = await new Deno.Command(Deno.execPath(), { args: ["fmt", "-q", file] }).output();
  if (!fmt.success) throw new Error(`deno fmt ${file} failed`);
}
