/**
 * Reading a host's entry back through the profile's own `server` template: the template says
 * where the command, its arguments and its environment sit (`${command}`, `${args}`, `${env}`,
 * or OpenCode's one list `["${command}", "${args}"]`), so the profile that renders an entry is
 * also what reads it. Every other field of the template is a value setup writes; a found entry
 * that lacks it or holds another is named as a difference.
 */
import type { JsonValue } from "../shared/json.ts";

/** What a host starts: the entry's command, arguments and environment. */
export interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

type ShapeReading =
  | { ok: true; launch: Launch; differences: string[] }
  | { ok: false; problem: string };

const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string");

/** Reads `raw` (the value under the server's name) through `template`. */
export function readShape(template: JsonValue, raw: unknown): ShapeReading {
  if (!isMap(template)) return { ok: false, problem: "the profile's server is not an object" };
  if (!isMap(raw)) return { ok: false, problem: "the entry is not an object" };
  // `cline mcp add` writes the launch fields inside a `transport` object.
  const entry = isMap(raw.transport) ? { ...raw, ...raw.transport } : raw;
  let command: string | undefined;
  let args: string[] = [];
  let env: Record<string, string> = {};
  const differences: string[] = [];
  for (const [key, want] of Object.entries(template)) {
    const value = entry[key];
    if (want === "${command}") {
      if (typeof value !== "string") return { ok: false, problem: `its ${key} is not a string` };
      command = value;
    } else if (want === "${args}") {
      if (value !== undefined && !isStrings(value)) {
        return { ok: false, problem: `its ${key} is not a list of strings` };
      }
      args = value ?? [];
    } else if (want === "${env}") {
      if (value !== undefined && !isStringMap(value)) {
        return { ok: false, problem: `its ${key} is not a map of strings` };
      }
      env = value ?? {};
    } else if (Array.isArray(want) && want[0] === "${command}" && want[1] === "${args}") {
      if (!isStrings(value) || value.length === 0) {
        return { ok: false, problem: `its ${key} is not a non-empty list of strings` };
      }
      [command, ...args] = value;
    } else if (JSON.stringify(value) !== JSON.stringify(want)) {
      differences.push(
        value === undefined
          ? `it has no ${key} (setup writes ${JSON.stringify(want)})`
          : `its ${key} is ${JSON.stringify(value)} where setup writes ${JSON.stringify(want)}`,
      );
    }
  }
  if (command === undefined) return { ok: false, problem: "the profile names no command" };
  if (entry.disabled === true || entry.enabled === false) {
    differences.unshift("it is disabled, so the host does not start it");
  }
  return { ok: true, launch: { command, args, env }, differences };
}

function isStringMap(value: unknown): value is Record<string, string> {
  return isMap(value) && Object.values(value).every((item) => typeof item === "string");
}

/** The `--approval` and `--socket` an entry passes to `serve` (the last of each, as parsed). */
export function serveOption(args: readonly string[], name: string): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--") break;
    if (args[i] === name && i + 1 < args.length) found = args[++i];
    else if (args[i].startsWith(`${name}=`)) found = args[i].slice(name.length + 1);
  }
  return found;
}
