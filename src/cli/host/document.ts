/**
 * A host's configuration file as text and as data: JSON with comments (jsonc-parser, the
 * parser VS Code uses for its own settings) or TOML (smol-toml). A file neither can read is
 * refused with its line and column, before anything is changed.
 */
import {
  createScanner,
  parse as parseJsonc,
  type ParseError,
  printParseErrorCode,
  stripComments,
} from "jsonc-parser";
import { parse as parseToml, TomlError } from "smol-toml";
import type { JsonValue } from "../../shared/json.ts";

export type Language = "json" | "toml";

export function languageOf(path: string): Language {
  return path.endsWith(".toml") ? "toml" : "json";
}

/** A file that cannot be read as its language, at a line and column (1-based). */
export class DocumentError extends Error {
  override name = "DocumentError";
  constructor(readonly file: string, readonly line: number, readonly column: number, what: string) {
    super(`${file}:${line}:${column}: ${what}`);
  }
}

/** Options every JSON read and edit shares: comments and trailing commas as VS Code takes them. */
export const JSONC_OPTIONS = { allowTrailingComma: true, disallowComments: false } as const;

/** The file's data; an empty (or comment-only) JSON file is an empty object. */
export function parseDocument(text: string, language: Language, file: string): JsonValue {
  if (language === "toml") {
    try {
      return JSON.parse(JSON.stringify(parseToml(text)));
    } catch (error) {
      if (!(error instanceof TomlError)) throw error;
      const what = error.message.split("\n")[0].replace(/^Invalid TOML document: /, "");
      throw new DocumentError(file, error.line, error.column, `not valid TOML: ${what}`);
    }
  }
  if (stripComments(text).trim() === "") return {};
  const errors: ParseError[] = [];
  const value: JsonValue | undefined = parseJsonc(text, errors, JSONC_OPTIONS);
  if (errors.length > 0) {
    const [first] = errors;
    const { line, column } = lineAndColumn(text, first.offset);
    throw new DocumentError(
      file,
      line,
      column,
      `not valid JSON: ${printParseErrorCode(first.error)}`,
    );
  }
  return value === undefined ? {} : value;
}

export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}

/** The value at `path` below `root`, or undefined. */
export function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return undefined;
    node = Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

/** The line ending the file uses (its first one), "\n" when it has none. */
export function lineEnding(text: string): string {
  const at = text.indexOf("\n");
  return at > 0 && text[at - 1] === "\r" ? "\r\n" : "\n";
}

/**
 * What a host's JSON reader takes beyond plain JSON: "jsonc" comments and trailing commas (the
 * default), "comments" comments only (Gemini CLI, Qwen Code), "plain" neither (Cline).
 */
type JsonSyntax = "jsonc" | "comments" | "plain";

/** jsonc-parser's SyntaxKind (a const enum its types cannot lend to isolated modules). */
const KIND = { closeBrace: 2, closeBracket: 4, comma: 5, lineComment: 12, blockComment: 13 };
const SPACE = new Set([14, 15]);

/**
 * The first thing in `text` a reader of `syntax` refuses (a comment, a trailing comma), with
 * its line and column; null when it reads it all.
 */
export function beyondSyntax(
  text: string,
  syntax: JsonSyntax,
): { line: number; column: number; what: string } | null {
  if (syntax === "jsonc") return null;
  const scanner = createScanner(text, false);
  let comma: number | null = null;
  for (let kind = scanner.scan(); kind !== 17; kind = scanner.scan()) {
    const offset = scanner.getTokenOffset();
    if (kind === KIND.lineComment || kind === KIND.blockComment) {
      if (syntax === "plain") return { ...lineAndColumn(text, offset), what: "a comment" };
      continue;
    }
    if (SPACE.has(kind)) continue;
    if (comma !== null && (kind === KIND.closeBrace || kind === KIND.closeBracket)) {
      return { ...lineAndColumn(text, comma), what: "a comma before a closing bracket" };
    }
    comma = kind === KIND.comma ? offset : null;
  }
  return null;
}
