/**
 * The shape of a host profile (`config-profiles/*.json`). Profiles are data: a host is added by
 * writing a file and listing it in `hosts.ts`, never by adding renderer code. A profile is
 * parsed against the schema below, so a malformed file fails loudly at start-up.
 */
import { z } from "zod";
import type { JsonValue } from "../shared/json.ts";

/** Any JSON value; profile templates are plain JSON with whole-string placeholders. */
const json: z.ZodType<JsonValue> = z.lazy(() =>
  z.union(
    [z.null(), z.boolean(), z.number(), z.string(), z.array(json), z.record(z.string(), json)],
    "must be JSON",
  )
);

/** `{"$encode": ["json", "base64", "uri"], "of": TEMPLATE}`: see template.ts. */
const encoded = z.strictObject({
  $encode: z.array(z.enum(["json", "base64", "uri"])).min(1),
  of: json,
}, "a word must be a string or an $encode template");

/**
 * One place a host keeps its server entries: a file (a path template, see entry_places.ts) and
 * where in it the servers map lies. Listed in the host's order of precedence, the one it uses
 * first first.
 */
const entryFile = z.strictObject({
  path: z.string("entry.files[].path must be a path template"),
  /** Keys from the document's root to the servers map; "${CWD}" stands for the folder. */
  at: z.array(z.string()).min(1, "entry.files[].at must name the servers map"),
  /** The host's own name for this place ("user", "project", "local"). */
  scope: z.string().min(1),
  /** Only on this system (the host keeps its file elsewhere on the other). */
  os: z.enum(["linux", "darwin"]).optional(),
  /** Whether `setup` edits this file: the first such that exists, else the first such. */
  setup: z.boolean().optional(),
});

/** How a host's own command shows the entry it has, and how that answer is read. */
const entryShow = z.strictObject({
  command: z.array(z.string()).min(2),
  /**
   * "json-entry": the entry itself as JSON (Codex); "json-named": `{portreeve: entry}`
   * (Copilot CLI); "json-config": the whole resolved configuration (OpenCode); "scope-text":
   * Claude Code's `mcp get` text, whose Scope line names the file; "status-line": a list line
   * `portreeve: COMMAND ARGS… (stdio) - STATUS` (Gemini CLI, Qwen Code).
   */
  reads: z.enum(["json-entry", "json-named", "json-config", "scope-text", "status-line"]),
});

/** Where the host keeps its entry and how `doctor --host` reads it and `setup` writes it. */
const entrySchema = z.strictObject({
  files: z.array(entryFile).min(1, "entry.files must list where the host keeps its entry"),
  show: entryShow.nullable(),
  /**
   * "command": setup runs the host's own setup and removal commands (they express the whole
   * entry); "file": setup edits the first `setup` file (the host's command cannot).
   */
  setup: z.enum(["command", "file"]),
  /** Gemini CLI: the file of trusted folders; the host disables servers elsewhere. */
  trustedFolders: z.string().optional(),
  /**
   * What the host's JSON reader takes beyond plain JSON, measured with its program: "comments"
   * (no trailing comma: Gemini CLI, Qwen Code), "plain" (neither: Cline, which then reads no
   * server at all); absent: comments and trailing commas, as far as anyone knows.
   */
  jsonSyntax: z.enum(["comments", "plain"]).optional(),
});

const profileSchema = z.strictObject({
  /** Value of `--host`. */
  id: z.string().regex(/^[a-z][a-z0-9-]*$/, "id must be a lower-case word"),
  /** Human name of the host. */
  label: z.string().min(1, "label must be a non-empty string"),
  /**
   * Whether the host asks its user through MCP (declares form elicitation, or answers
   * input_required): then a person approves each change in the host's own question; else,
   * by default, each change is refused unless the entry opts into `--approval auto`. Null
   * where it depends on the host (generic). Measured by `deno task test:hosts` where the host
   * runs here, else from the host's published capabilities.
   */
  asksThroughMcp: z.boolean("asksThroughMcp must be true, false or null").nullable(),
  configurationLanguage: z.enum(
    ["json", "toml"],
    'configurationLanguage must be "json" or "toml"',
  ),
  /** Where the user puts the configuration text (shown in human output). */
  configurationTarget: z.string("configurationTarget must be a string"),
  /** The server entry; placeholders `${command}`, `${args}`, `${env}`. */
  server: json,
  /** The whole configuration text's value; may use `${server}`. */
  configuration: json,
  /**
   * Words of the registration command, or null when the host has none. A word is a string
   * (which may be a placeholder) or an `$encode` template, which renders to one string.
   */
  setupCommand: z.array(
    z.union([z.string(), encoded]),
    "setupCommand must be null or a list of words",
  )
    .nullable(),
  /**
   * The host's install link, as parts joined into one string (for example a literal prefix and
   * the base64 of the entry), or null when the host has none.
   */
  installLink: z.array(
    z.union([z.string(), encoded]),
    "installLink must be null or a list of parts",
  )
    .nullable(),
  /**
   * The words that take the entry out again, where `PROGRAM mcp remove portreeve` (derived from
   * the setup command) is wrong; null when the host has no such command (OpenCode 1.18).
   */
  removeCommand: z.array(z.string(), "removeCommand must be null or string[]").nullable()
    .optional(),
  notes: z.array(z.string(), "notes must be string[]"),
  /**
   * The largest tool result (bytes of what the host shows its model) the host shows whole, the
   * smallest over the paths it takes, as `deno task test:hosts` measured it; null where no cut
   * is known (the bridge then fits results to the smallest limit any profile states).
   */
  resultLimitBytes: z.int("resultLimitBytes must be null or a whole number of bytes")
    .min(1_000, "resultLimitBytes must be at least 1000")
    .nullable(),
  /**
   * How the host shows a result to its model, which `resultLimitBytes` counts: "envelope" (the
   * text block or structuredContent, one copy; the default) or "result-json" (the whole result
   * serialised, so the envelope twice and once escaped: Cline).
   */
  resultShownAs: z.enum(
    ["envelope", "result-json"],
    'resultShownAs must be "envelope" or "result-json"',
  ).optional(),
  /**
   * Whether the bridge flags a failed call with `isError` for this host (MCP's way). False for
   * Gemini CLI and Qwen Code (its fork): each replaces a flagged error with its own line that
   * echoes the call and the raw result, so the bridge sends it the error unflagged
   * (src/results/result.ts).
   */
  flagsToolErrors: z.boolean("flagsToolErrors must be true or false"),
  /**
   * Where the host keeps its entry, how `doctor --host` reads it and how `setup` writes it;
   * null only where there is no one place (generic).
   */
  entry: entrySchema.nullable(),
}, "must be a JSON object");

export type HostProfile = z.output<typeof profileSchema>;
export type ConfigurationLanguage = HostProfile["configurationLanguage"];
type EntryPlaces = NonNullable<HostProfile["entry"]>;
export type EntryFile = EntryPlaces["files"][number];

class ProfileError extends Error {
  override name = "ProfileError";
}

/** Checks a profile read from JSON; the error names the file and the first thing wrong. */
export function parseProfile(value: unknown, origin: string): HostProfile {
  const parsed = profileSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ProfileError(`host profile ${origin}: ${described(parsed.error.issues[0])}`);
}

function described(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") return `unknown key "${issue.keys[0]}"`;
  const field = String(issue.path[0] ?? "");
  // Messages written above name their field; zod's own (inside a list or a map) get the path.
  return issue.message.startsWith(field)
    ? issue.message
    : `${issue.path.join(".")}: ${issue.message}`;
}
