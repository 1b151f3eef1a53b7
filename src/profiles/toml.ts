/**
 * A small TOML writer for configuration snippets: scalars and arrays inline, nested objects as
 * `[dotted.table]` sections, strings as basic strings with every control character escaped.
 */
import type { JsonValue } from "../shared/json.ts";

export class TomlError extends Error {
  override name = "TomlError";
}

type Table = { [key: string]: JsonValue };

/** Renders a top-level table; the text ends with a newline. */
export function stringifyToml(root: Table): string {
  const lines: string[] = [];
  writeTable(root, [], lines);
  return lines.join("\n") + "\n";
}

function writeTable(table: Table, path: string[], lines: string[]): void {
  const entries = Object.entries(table);
  const scalars = entries.filter(([, value]) => !isTable(value));
  const tables = entries.filter(([, value]) => isTable(value)) as [string, Table][];
  // A table holding only sub-tables needs no header of its own (TOML defines it implicitly).
  if (path.length > 0 && (scalars.length > 0 || tables.length === 0)) {
    if (lines.length > 0) lines.push("");
    lines.push(`[${path.map(tomlKey).join(".")}]`);
  }
  for (const [key, value] of scalars) lines.push(`${tomlKey(key)} = ${entryValue(value)}`);
  for (const [key, value] of tables) writeTable(value, [...path, key], lines);
}

/** Long arrays go one item per line (valid TOML) so exact commands stay readable. */
function entryValue(value: JsonValue): string {
  const inline = tomlValue(value);
  if (!Array.isArray(value) || inline.length <= MAX_INLINE) return inline;
  return `[\n${value.map((item) => `  ${tomlValue(item)},`).join("\n")}\n]`;
}

const MAX_INLINE = 80;

function isTable(value: JsonValue): value is Table {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Bare keys when TOML allows them, quoted otherwise. */
export function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

function tomlValue(value: JsonValue): string {
  if (value === null) throw new TomlError("TOML has no null");
  if (typeof value === "string") return tomlString(value);
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TomlError("TOML numbers must be finite");
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  const pairs = Object.entries(value).map(([key, item]) => `${tomlKey(key)} = ${tomlValue(item)}`);
  return pairs.length === 0 ? "{}" : `{ ${pairs.join(", ")} }`;
}

/** A TOML basic string: `"` and `\` escaped, control characters as `\uXXXX`. */
export function tomlString(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      // TOML strings must be valid Unicode; a lone surrogate cannot be written at all.
      throw new TomlError("string contains an unpaired surrogate and cannot be written as TOML");
    }
    if (char === '"') out += '\\"';
    else if (char === "\\") out += "\\\\";
    else if (code < 0x20 || code === 0x7f) {
      out += `\\u${code.toString(16).toUpperCase().padStart(4, "0")}`;
    } else out += char;
  }
  return out + '"';
}
