/**
 * Adding, replacing and removing one entry of a JSON (with comments) file, every other byte
 * kept. jsonc-parser finds where things are (`parseTree`) and applies the change
 * (`applyEdits`); the text of the change is made here rather than by its `modify`, whose
 * formatting rewrites the neighbouring line and whose removal would take a comment after the
 * previous entry with it. An insertion is `,` + line + indent + `"name": value` right after the
 * last entry (below the comment that ends its line, which stays with it), and a removal takes out
 * exactly that, so `remove(add(text)) === text` whenever the map held other entries; the indent
 * and line ending are the file's own.
 */
import { applyEdits, findNodeAtLocation, type Node, parseTree } from "jsonc-parser";
import type { JsonValue } from "../../shared/json.ts";
import {
  DocumentError,
  JSONC_OPTIONS,
  lineAndColumn,
  lineEnding,
  parseDocument,
} from "./document.ts";

interface Layout {
  eol: string;
  unit: string;
}

/** The file's indent unit: that of its first indented line; two spaces when it has none. */
function layoutOf(text: string): Layout {
  const indented = /^([ \t]+)\S/m.exec(text);
  return { eol: lineEnding(text), unit: indented?.[1] ?? "  " };
}

function indentAt(text: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

function pretty(value: JsonValue, indent: string, layout: Layout): string {
  return JSON.stringify(value, null, layout.unit).split("\n").join(layout.eol + indent);
}

function nested(path: readonly string[], value: JsonValue): JsonValue {
  return path.reduceRight<JsonValue>((inner, key) => ({ [key]: inner }), value);
}

function treeOf(text: string, file: string): Node | undefined {
  parseDocument(text, "json", file); // refuses a file it cannot read, with line and column
  const root = parseTree(text, [], JSONC_OPTIONS);
  if (root !== undefined && root.type !== "object") {
    const { line, column } = lineAndColumn(text, root.offset);
    throw new DocumentError(file, line, column, "the top level is not an object");
  }
  return root;
}

/** `text` with `value` at `path` (the servers map's keys, then the entry's name). */
export function setJsonValue(
  text: string,
  path: readonly string[],
  value: JsonValue,
  file: string,
): string {
  const layout = layoutOf(text);
  const root = treeOf(text, file);
  if (root === undefined) {
    const gap = text === "" || text.endsWith("\n") ? "" : layout.eol;
    return `${text}${gap}${pretty(nested(path, value), "", layout)}${layout.eol}`;
  }
  let node = root;
  for (const [i, key] of path.entries()) {
    const child = findNodeAtLocation(node, [key]);
    if (child === undefined) {
      return insert(text, node, key, nested(path.slice(i + 1), value), layout);
    }
    if (i === path.length - 1) {
      const edit = {
        offset: child.offset,
        length: child.length,
        content: pretty(value, indentAt(text, child.parent!.offset), layout),
      };
      return applyEdits(text, [edit]);
    }
    if (child.type !== "object") {
      const { line, column } = lineAndColumn(text, child.offset);
      throw new DocumentError(file, line, column, `"${key}" is not an object`);
    }
    node = child;
  }
  throw new Error("setJsonValue needs a path");
}

function insert(text: string, object: Node, key: string, value: JsonValue, layout: Layout) {
  const children = object.children ?? [];
  const parentIndent = indentAt(text, object.offset);
  const last = children.at(-1);
  if (last === undefined) {
    const inner = text.slice(object.offset + 1, object.offset + object.length - 1);
    const indent = parentIndent + layout.unit;
    const after = inner === "" ? layout.eol + parentIndent : inner;
    const content = `${layout.eol}${indent}${JSON.stringify(key)}: ${
      pretty(value, indent, layout)
    }${after}`;
    return applyEdits(text, [{ offset: object.offset + 1, length: inner.length, content }]);
  }
  const ownLine = text.slice(text.lastIndexOf("\n", last.offset - 1) + 1, last.offset).trim() ===
    "";
  const indent = ownLine ? indentAt(text, last.offset) : parentIndent + layout.unit;
  const entry = `${layout.eol}${indent}${JSON.stringify(key)}: ${pretty(value, indent, layout)}`;
  const end = last.offset + last.length;
  const comment = SAME_LINE_COMMENT.exec(text.slice(end));
  if (comment !== null) {
    // The comment on the last entry's line stays with it: the new entry goes below that line.
    const lineEnd = end + comment[0].length;
    return applyEdits(text, [
      { offset: end, length: 0, content: "," },
      { offset: lineEnd, length: 0, content: entry },
    ]);
  }
  return applyEdits(text, [{ offset: end, length: 0, content: `,${entry}` }]);
}

/** A comment after a value, the rest of its line, up to its line ending. */
const SAME_LINE_COMMENT = /^[ \t]*(\/\/[^\r\n]*|\/\*[^\r\n]*?\*\/[ \t]*)(?=\r?\n)/;

/**
 * `text` without the value at `path`; then, going up, each map `emptied(path)` says to take out
 * once it holds nothing. Unchanged when there is nothing at `path`.
 */
export function removeJsonValue(
  text: string,
  path: readonly string[],
  file: string,
  emptied: (path: readonly string[]) => boolean = () => false,
): string {
  const root = treeOf(text, file);
  const found = root && findNodeAtLocation(root, [...path]);
  if (root === undefined || found === undefined) return text;
  let out = removeProperty(text, found.parent!);
  for (let up = path.length - 1; up > 0; up--) {
    const container = path.slice(0, up);
    const node = findNodeAtLocation(parseTree(out, [], JSONC_OPTIONS)!, [...container]);
    if (node === undefined || (node.children ?? []).length > 0 || !emptied(container)) break;
    out = removeProperty(out, node.parent!);
  }
  return out;
}

/** Takes out one property (a key and its value), and the comma and line that joined it. */
function removeProperty(text: string, property: Node): string {
  const object = property.parent!;
  const siblings = object.children!;
  const index = siblings.indexOf(property);
  const end = property.offset + property.length;
  if (index > 0) {
    const previous = siblings[index - 1];
    const between = text.slice(previous.offset + previous.length, property.offset);
    const comma = between.indexOf(",");
    if (/^\s*,\s*$/.test(between)) {
      return applyEdits(text, [{
        offset: previous.offset + previous.length,
        length: end - previous.offset - previous.length,
        content: "",
      }]);
    }
    // Comments between: keep them, take the comma, and the property with its line break.
    const commaAt = previous.offset + previous.length + comma;
    const lineBreak = /\r?\n[ \t]*$/.exec(between)?.[0].length ?? 0;
    return applyEdits(text, [
      { offset: commaAt, length: 1, content: "" },
      { offset: property.offset - lineBreak, length: property.length + lineBreak, content: "" },
    ]);
  }
  const next = siblings[1];
  if (next !== undefined) {
    return applyEdits(text, [{
      offset: property.offset,
      length: next.offset - property.offset,
      content: "",
    }]);
  }
  // The only entry: what the insertion into an empty map added goes, back to `{}`.
  const layout = layoutOf(text);
  const parentIndent = indentAt(text, object.offset);
  const before = text.slice(object.offset + 1, property.offset);
  const after = text.slice(end, object.offset + object.length - 1);
  const ours = before === layout.eol + parentIndent + layout.unit;
  const inner = ours && after === layout.eol + parentIndent ? "" : ours ? after : before + after;
  return applyEdits(text, [{
    offset: object.offset + 1,
    length: object.length - 2,
    content: inner,
  }]);
}
