/**
 * `portreeve-mcp setup --host NAME`: the one command that writes a host's configuration, and
 * only when a person runs it (design decision D9: never implicit). It adds or updates the
 * `portreeve` entry `config --host NAME` prints; `--remove` takes it out again; `--dry-run`
 * prints the change as a unified diff and writes nothing. It edits the host's file
 * (host/json_edit.ts, host/toml_edit.ts), keeping every byte that is not the entry, atomically
 * and with a backup (host/file_write.ts): Gemini CLI's, Qwen Code's and Copilot CLI's own add
 * commands rewrite the whole file (line endings, layout, key order; Qwen Code drops a comment
 * next to the entry). Only where the file is the host's own state, rewritten as it runs
 * (Claude Code's ~/.claude.json), it runs the host's add and remove commands. Running it twice changes nothing the second time; `--remove` after
 * `setup` gives the file back byte for byte.
 */
import { isDeepStrictEqual } from "node:util";
import { createTwoFilesPatch } from "diff";
import {
  APPROVAL_MODES,
  DEFAULT_APPROVAL_MODE,
  PRODUCT,
  SERVER_NAME,
  TOOLSETS,
} from "../shared/options.ts";
import type { JsonValue } from "../shared/json.ts";
import { locateSocket } from "../shared/socket_location.ts";
import { detectInstallation } from "../shared/installation.ts";
import { commandLine } from "../shared/hints.ts";
import { shellJoin } from "../shared/shell.ts";
import {
  ConfigError,
  type EntryValues,
  findHost,
  HOST_IDS,
  HOST_PROFILES,
  type HostProfile,
  removalCommand,
  renderEntry,
  setupWords,
  unknownHostMessage,
} from "../profiles/mod.ts";
import { type CommandIO, parseOptions, UsageError } from "./options.ts";
import { wrappedList } from "./host_list.ts";
import { hostContext } from "./host/context.ts";
import type { PlaceContext } from "../profiles/entry_places.ts";
import { type SetupTarget, setupTarget } from "./host/target.ts";
import {
  beyondSyntax,
  DocumentError,
  type Language,
  languageOf,
  parseDocument,
  valueAt,
} from "./host/document.ts";
import { removeJsonValue, setJsonValue } from "./host/json_edit.ts";
import { removeTomlValue, setTomlValue } from "./host/toml_edit.ts";
import { HostFileError, readBackup, writeHostFile } from "./host/file_write.ts";
import { plain, runProgram, unanswered } from "./host/host_program.ts";

export const SETUP_EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** `setup`'s options; `setup --help` lists every one (a test keeps them in step). */
export const SETUP_OPTIONS = {
  host: { type: "string" },
  remove: { type: "boolean" },
  "dry-run": { type: "boolean" },
  socket: { type: "string" },
  label: { type: "string" },
  toolset: { type: "string" },
  approval: { type: "string" },
  portable: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export const SETUP_HELP = `usage: ${PRODUCT} setup --host HOST [--remove] [--dry-run] [options]

Adds the portreeve entry \`config --host HOST\` prints to that host's configuration, or
updates it; the only command that writes a host's files, and only when you run it. It edits
the host's file, keeping every other byte: the file is replaced in one step, its mode kept,
the old one kept beside it as FILE.portreeve-mcp.bak. Where that file is the host's own state
(${
  HOST_PROFILES.filter((p) => p.entry?.setup === "command").map((p) => p.id).join(", ")
}), it runs the host's own add and remove commands instead. A second run changes
nothing; --remove after setup gives the file back as it was.

  --host HOST       ${wrappedList(HOST_IDS.filter((id) => id !== "generic"), ", ", " ".repeat(20))}
  --remove          take the portreeve entry out again
  --dry-run         print the change as a unified diff; write nothing
  --socket PATH     daemon socket the entry names (default: as config finds it)
  --label NAME      serve --label for the entry
  --toolset SET     ${TOOLSETS.join(" | ")} (default full)
  --approval MODE   ${APPROVAL_MODES.join(" | ")} (default ${DEFAULT_APPROVAL_MODE})
  --portable        the bare \`${PRODUCT}\` command instead of this installation's path
  -h, --help        this help

Exit codes: 0 done (or nothing to change), 1 not done (the message says why), 2 usage error.`;

type Values = ReturnType<typeof parseSetup>;

function parseSetup(args: string[]) {
  return parseOptions(args, SETUP_OPTIONS, commandLine(["setup", "--help"]));
}

export async function runSetup(
  args: string[],
  io: CommandIO,
  context: PlaceContext = hostContext(),
): Promise<number> {
  const values = parseSetup(args);
  if (values.help) {
    io.stdout(`${SETUP_HELP}\n`);
    return SETUP_EXIT.ok;
  }
  const profile = hostOf(values.host);
  const entry = values.remove ? undefined : entryFor(profile, values);
  const dryRun = values["dry-run"] === true;
  const say = { dryRun, io, check: doctorCommand(profile, values) };
  try {
    const target = await setupTarget(profile, context);
    if (target === null) {
      io.stderr(
        `${PRODUCT} setup: cannot tell where ${profile.label} keeps its entry: HOME is not set\n`,
      );
      return SETUP_EXIT.failed;
    }
    return profile.entry!.setup === "command"
      ? await commandSetup(profile, target, entry, { ...say, context })
      : await fileSetup(profile, target, entry?.server, say);
  } catch (error) {
    if (!(error instanceof DocumentError || error instanceof HostFileError)) throw error;
    io.stderr(`${PRODUCT} setup: ${error.message}; nothing was changed\n`);
    return SETUP_EXIT.failed;
  }
}

function hostOf(host: string | undefined): HostProfile {
  if (host === undefined) {
    throw new UsageError(`setup needs --host; see \`${commandLine(["setup", "--help"])}\``);
  }
  const profile = findHost(host);
  if (profile === undefined) throw new UsageError(unknownHostMessage(host));
  if (profile.entry === null) {
    throw new UsageError(
      `${profile.label} has no one file to write: print the entry with \`${
        commandLine(["config", "--host", host])
      }\` and add it where your host reads it`,
    );
  }
  return profile;
}

/** How a person and setup's messages go together. */
interface Say {
  dryRun: boolean;
  io: CommandIO;
  /** The doctor command that checks this entry: with the socket and options setup was given. */
  check: string;
}

function doctorCommand(profile: HostProfile, values: Values): string {
  const given = (["socket", "label", "toolset", "approval"] as const).flatMap((name) => {
    const value = values[name];
    return value === undefined ? [] : [`--${name}`, value];
  });
  return commandLine(["doctor", "--host", profile.id, ...given]);
}

function entryFor(profile: HostProfile, values: Values): EntryValues {
  try {
    return renderEntry({
      host: profile.id,
      portable: values.portable === true,
      label: values.label,
      toolset: values.toolset,
      approval: values.approval,
      socket: locateSocket(values.socket),
    }, detectInstallation());
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/** The entry as it is in the file, or undefined; the file refused when it cannot be read. */
function currentEntry(target: SetupTarget): JsonValue | undefined {
  const { file, place } = target;
  if (file.text === null) return undefined;
  const doc = parseDocument(file.text, languageOf(file.path), file.real);
  return valueAt(doc, [...place.at, SERVER_NAME]) as JsonValue | undefined;
}

/** The same entry, whatever the order of its keys. */
function sameEntry(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : typeof value === "object" && value !== null
      ? Object.fromEntries(
        Object.entries(value).sort(([x], [y]) => x < y ? -1 : 1).map(([k, v]) => [k, sorted(v)]),
      )
      : value;
  return isDeepStrictEqual(sorted(a), sorted(b));
}

const EDITS: Record<Language, {
  set: typeof setJsonValue;
  remove: typeof removeJsonValue;
}> = {
  json: { set: setJsonValue, remove: removeJsonValue },
  toml: { set: setTomlValue, remove: removeTomlValue },
};

/** The change setup makes to a file. */
interface Edited {
  text: string;
  /**
   * Whether the backup is the file as it was before setup first wrote the entry, nothing else
   * changed since: an update keeps it, so a later --remove still gives that file back.
   */
  keepBackup: boolean;
}

/** The file's text after the change: the entry set, or taken out (as setup put it in). */
async function edited(target: SetupTarget, server: JsonValue | undefined): Promise<Edited> {
  const { file, place } = target;
  const text = file.text ?? "";
  const path = [...place.at, SERVER_NAME];
  const edit = EDITS[languageOf(file.path)];
  const current = currentEntry(target);
  if (server !== undefined && sameEntry(current, server)) return { text, keepBackup: false };
  if (current === undefined) {
    return {
      text: server === undefined ? text : edit.set(text, path, server, file.real),
      keepBackup: false,
    };
  }
  const before = await backupBefore(target, current);
  if (server !== undefined) {
    return { text: edit.set(text, path, server, file.real), keepBackup: before?.exact === true };
  }
  if (before?.exact) return { text: before.text, keepBackup: false };
  const emptied = before === null
    ? undefined
    : (container: readonly string[]) => valueAt(before.data, container) === undefined;
  return { text: edit.remove(text, path, file.real, emptied), keepBackup: false };
}

/**
 * The backup, read: `exact` when it is the file as it was before setup, nothing but the entry
 * (`current`) changed since. Null when there is none, or none that parses.
 */
async function backupBefore(target: SetupTarget, current: JsonValue) {
  const { file, place } = target;
  const text = await readBackup(file.real);
  if (text === null) return null;
  const path = [...place.at, SERVER_NAME];
  try {
    const data = parseDocument(text, languageOf(file.path), file.real);
    const exact = valueAt(data, path) === undefined &&
      EDITS[languageOf(file.path)].set(text, path, current, file.real) === file.text;
    return { text, data, exact };
  } catch (error) {
    if (!(error instanceof DocumentError)) throw error;
    return null;
  }
}

/**
 * Refuses to add the entry to a file the host itself cannot read (a comment where it reads
 * plain JSON): the host would take no server from it, this one included.
 */
function hostCanRead(profile: HostProfile, { file }: SetupTarget): void {
  const syntax = profile.entry?.jsonSyntax;
  if (syntax === undefined || file.text === null || languageOf(file.path) !== "json") return;
  const beyond = beyondSyntax(file.text, syntax);
  if (beyond === null) return;
  throw new DocumentError(
    file.real,
    beyond.line,
    beyond.column,
    `${beyond.what}, which ${profile.label} cannot read (it takes no server from this file): take it out, then run setup again`,
  );
}

function diff(target: SetupTarget, before: string, after: string): string {
  const name = target.file.real;
  return createTwoFilesPatch(name, name, before, after, "now", "after setup", { context: 3 });
}

async function fileSetup(
  profile: HostProfile,
  target: SetupTarget,
  server: JsonValue | undefined,
  { dryRun, io, check }: Say,
): Promise<number> {
  const { file } = target;
  if (file.link) {
    io.stdout(`${file.path} is a symbolic link to ${file.real}: editing ${file.real}.\n`);
  }
  if (server !== undefined) hostCanRead(profile, target);
  const { text: after, keepBackup } = await edited(target, server);
  const before = file.text ?? "";
  if (after === before) {
    io.stdout(unchanged(target, server, check));
    return SETUP_EXIT.ok;
  }
  if (dryRun) {
    io.stdout(diff(target, before, after));
    io.stdout(`Dry run: ${file.real} was not changed.\n`);
    return SETUP_EXIT.ok;
  }
  // The change is shown once it is made: a write refused (no folder yet) shows none.
  const backup = await writeHostFile(file, after, keepBackup);
  io.stdout(diff(target, before, after));
  io.stdout(done(profile, target, server, backup, check));
  return SETUP_EXIT.ok;
}

async function commandSetup(
  profile: HostProfile,
  target: SetupTarget,
  entry: EntryValues | undefined,
  { dryRun, io, check, context }: Say & { context: PlaceContext },
): Promise<number> {
  const server = entry?.server;
  const current = currentEntry(target);
  if (server === undefined ? current === undefined : sameEntry(current, server)) {
    io.stdout(unchanged(target, server, check));
    return SETUP_EXIT.ok;
  }
  const remove = removalCommand(profile)!;
  const add = entry === undefined ? null : setupWords(entry);
  const steps = [...(current === undefined ? [] : [remove]), ...(add === null ? [] : [add])];
  io.stdout(diff(target, target.file.text ?? "", (await edited(target, server)).text));
  io.stdout(
    `${profile.label}'s own command${steps.length > 1 ? "s make" : " makes"} this change:\n`,
  );
  for (const words of steps) io.stdout(`  ${shellJoin(words)}\n`);
  if (dryRun) {
    io.stdout("Dry run: nothing was run or changed.\n");
    return SETUP_EXIT.ok;
  }
  for (const words of steps) {
    const run = await runProgram(words);
    if (run.kind !== "ran" || run.code !== 0) {
      const why = run.kind === "ran"
        ? plain(run.stderr || run.stdout).trim().split("\n").slice(-2).join(" ")
        : unanswered(run);
      io.stderr(`${PRODUCT} setup: \`${shellJoin(words)}\` failed: ${why}\n`);
      return SETUP_EXIT.failed;
    }
  }
  const now = await setupTarget(profile, context);
  const written = now === null ? undefined : currentEntry(now);
  if (server === undefined ? written !== undefined : !sameEntry(written, server)) {
    io.stderr(
      `${PRODUCT} setup: ${profile.label}'s command ran, but ${target.file.real} does not hold the entry expected\n`,
    );
    return SETUP_EXIT.failed;
  }
  io.stdout(done(profile, target, server, null, check));
  return SETUP_EXIT.ok;
}

function unchanged(target: SetupTarget, server: JsonValue | undefined, check: string): string {
  return server === undefined
    ? `${target.file.real} holds no ${SERVER_NAME} entry: nothing to remove.\n`
    : `${target.file.real} already holds this ${SERVER_NAME} entry: nothing to change. Check it with \`${check}\`.\n`;
}

function done(
  profile: HostProfile,
  target: SetupTarget,
  server: JsonValue | undefined,
  backup: string | null,
  check: string,
): string {
  const kept = (what: string) => backup === null ? "" : ` (${what}: ${backup})`;
  return server === undefined
    ? `Removed the ${SERVER_NAME} entry from ${target.file.real}${
      kept("the file as it was")
    }. Restart ${profile.label} sessions that had it.\n`
    : `Wrote the ${SERVER_NAME} entry to ${target.file.real}${
      kept("the file before setup")
    }. Start a new ${profile.label} session, then check it with \`${check}\`.\n`;
}
