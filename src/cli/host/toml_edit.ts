/**
 * Adding, replacing and removing one entry of a TOML file (Codex's config.toml), every other
 * byte kept. A new entry is appended as its own `[table]` block, written by smol-toml (the
 * project's one TOML writer), after one blank line; a change to an existing entry, and a
 * removal, go through @decimalturn/toml-patch, which edits the document in place and keeps its
 * comments, whitespace and order. Each result is parsed again and must hold exactly the data
 * intended, or nothing is written.
 */
import { parse as parseForPatch, patch } from "@decimalturn/toml-patch";
import { stringify } from "smol-toml";
import { isDeepStrictEqual } from "node:util";
import type { JsonValue } from "../../shared/json.ts";
import { lineEnding, parseDocument } from "./document.ts";

type Table = { [key: string]: JsonValue };

/**
 * `root` with `value` at `path` (taken out when undefined), changed in place: toml-patch's own
 * parse keeps dates as its date types, which a copy would lose.
 */
function withValue(root: unknown, path: readonly string[], value: JsonValue | undefined): Table {
  const copy = root as Table;
  let node = copy;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== "object" || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Table;
  }
  const last = path.at(-1)!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

function valueIn(root: JsonValue, path: readonly string[]): JsonValue | undefined {
  let node: JsonValue | undefined = root;
  for (const key of path) {
    node = typeof node === "object" && node !== null && !Array.isArray(node)
      ? node[key]
      : undefined;
  }
  return node;
}

function checked(text: string, want: Table, file: string): string {
  if (!isDeepStrictEqual(parseDocument(text, "toml", file), want)) {
    throw new Error(`editing ${file} would not give the intended TOML; nothing was written`);
  }
  return text;
}

/** `text` with `value` at `path` (the servers table's keys, then the entry's name). */
export function setTomlValue(
  text: string,
  path: readonly string[],
  value: JsonValue,
  file: string,
): string {
  const root = parseDocument(text, "toml", file);
  const existing = valueIn(root, path);
  const want = withValue(root, path, value);
  if (existing === undefined) {
    const eol = lineEnding(text);
    const block = stringify(withValue({}, path, value)).replaceAll("\n", eol);
    const gap = text === "" ? "" : text.endsWith("\n") ? eol : eol + eol;
    const appended = `${text}${gap}${block.endsWith(eol) ? block : block + eol}`;
    try {
      return checked(appended, want, file);
    } catch {
      // A servers table written inline cannot take a [table] block: patch it instead.
    }
  }
  return checked(patch(text, withValue(parseForPatch(text), path, value)), want, file);
}

/**
 * `text` without the value at `path`; then, going up, each table `emptied(path)` says to take
 * out once it holds nothing. Unchanged when there is nothing at `path`.
 */
export function removeTomlValue(
  text: string,
  path: readonly string[],
  file: string,
  emptied: (path: readonly string[]) => boolean = () => false,
): string {
  const root = parseDocument(text, "toml", file);
  if (valueIn(root, path) === undefined) return text;
  let want = withValue(root, path, undefined);
  let edited = withValue(parseForPatch(text), path, undefined);
  for (let up = path.length - 1; up > 0; up--) {
    const container = path.slice(0, up);
    const node = valueIn(want, container);
    if (typeof node !== "object" || node === null || Object.keys(node).length > 0) break;
    if (!emptied(container)) break;
    want = withValue(want, container, undefined);
    edited = withValue(edited, container, undefined);
  }
  return checked(patch(text, edited), want, file);
}
