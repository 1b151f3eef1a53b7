/**
 * TOML for printed configuration (Codex's table), written by smol-toml, the project's one TOML
 * library. smol-toml writes a lone surrogate as U+FFFD and drops a null: either would print an
 * entry other than the one meant, so such a value is refused first.
 */
import { stringify } from "smol-toml";
import type { JsonValue } from "../shared/json.ts";

class TomlError extends Error {
  override name = "TomlError";
}

/** The TOML text of a top-level table; it ends with a newline. */
export function stringifyToml(root: { [key: string]: JsonValue }): string {
  refuseUnwritable(root);
  return stringify(root);
}

function refuseUnwritable(value: JsonValue): void {
  if (value === null) throw new TomlError("TOML has no null");
  if (typeof value === "string" && !value.isWellFormed()) {
    throw new TomlError("string contains an unpaired surrogate and cannot be written as TOML");
  }
  if (typeof value === "object") {
    for (const item of Object.values(value)) {
      refuseUnwritable(item);
    }
  }
}
