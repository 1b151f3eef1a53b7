/**
 * The `portreeve` entry a host really has, read-only: every place its profile lists (user,
 * project and local files, highest precedence first), and the host's own command where it has
 * one, which says which of them it uses, or gives the entry itself as it resolved it. The files
 * give the exact words (a host's list output joins arguments with spaces); the host says which.
 */
import { SERVER_NAME } from "../../shared/options.ts";
import type { JsonValue } from "../../shared/json.ts";
import type { HostProfile } from "../../profiles/profile.ts";
import {
  type EntryPlace,
  entryPlaces,
  expandPath,
  type PlaceContext,
} from "../../profiles/entry_places.ts";
import { type Launch, readShape } from "../../profiles/entry_shape.ts";
import { beyondSyntax, DocumentError, languageOf, parseDocument, valueAt } from "./document.ts";
import { plain, type ProgramRun, runProgram, unanswered } from "./host_program.ts";

interface FoundEntry {
  launch: Launch;
  /** Fields setup writes that this entry lacks or holds otherwise. */
  differences: string[];
  scope: string;
  /** The file it is in; null when only the host's command showed it. */
  file: string | null;
}

interface HostAnswer {
  command: string;
  /** The status the host gives the entry ("✔ Connected", "Disabled"), when it gives one. */
  status: string | null;
  /** Why the host's command said nothing usable, when it did not. */
  note: string | null;
}

export interface EntryReading {
  entry: FoundEntry | null;
  /** Entries in places the host does not use here. */
  unused: FoundEntry[];
  host: HostAnswer | null;
  /** Files that could not be read, entries that could not be understood. */
  problems: string[];
  places: EntryPlace[];
  /** Whether a file could not be read for want of a grant (so no entry means nothing). */
  denied: boolean;
  /** Files the host itself cannot read (a comment where it reads plain JSON), and where. */
  refused: Refused[];
  /** Gemini CLI's folder trust for the folder, where the host has it. */
  trust: { trusted: boolean; detail: string } | null;
}

/** A place in a file the host's JSON reader refuses: it then reads no server from the file. */
interface Refused {
  file: string;
  line: number;
  column: number;
  what: string;
}

const NOT_GRANTED = "this process may not read it";

type Run = (argv: readonly string[]) => Promise<ProgramRun>;

/** What the host's own command said about the entry. */
type Said =
  | { kind: "entry"; raw: JsonValue; status: string | null; scope: string | null }
  | { kind: "scope"; scope: string; status: string | null }
  | { kind: "line"; line: string; status: string }
  | { kind: "none" }
  | { kind: "unknown"; note: string };

export async function readEntry(
  profile: HostProfile,
  context: PlaceContext,
  run: Run = runProgram,
): Promise<EntryReading> {
  const places = entryPlaces(profile, context);
  const problems: string[] = [];
  const texts = new Map<string, JsonValue | null>();
  const refused: Refused[] = [];
  const syntax = profile.entry?.jsonSyntax;
  const found: FoundEntry[] = [];
  for (const place of places) {
    if (!texts.has(place.file)) {
      const text = await readText(place.file, problems);
      texts.set(place.file, text === null ? null : parsed(place.file, text, problems));
      const beyond = text === null || syntax === undefined || languageOf(place.file) !== "json"
        ? null
        : beyondSyntax(text, syntax);
      if (beyond !== null) refused.push({ file: place.file, ...beyond });
    }
    const raw = valueAt(texts.get(place.file), [...place.at, SERVER_NAME]);
    if (raw === undefined) continue;
    const shape = readShape(profile.server, raw);
    if (!shape.ok) {
      problems.push(`${place.file}: its ${SERVER_NAME} entry cannot be read: ${shape.problem}`);
      continue;
    }
    found.push({ ...shape, scope: place.scope, file: place.file });
  }
  const show = profile.entry?.show ?? null;
  const said: Said = show === null
    ? { kind: "unknown", note: "" }
    : interpret(show.reads, await run(show.command));
  const host = show === null ? null : {
    command: show.command.join(" "),
    status: "status" in said ? said.status : null,
    note: said.kind === "unknown"
      ? said.note
      : said.kind === "none"
      ? `has no ${SERVER_NAME} entry`
      : null,
  };
  const entry = chosen(profile, said, found, problems);
  return {
    entry,
    unused: found.filter((other) => other !== entry && !sameLaunch(other, entry)),
    host,
    problems,
    places,
    denied: problems.some((problem) => problem.includes(NOT_GRANTED)),
    refused,
    trust: await folderTrust(profile, context, texts, problems),
  };
}

async function readDocument(file: string, problems: string[]): Promise<JsonValue | null> {
  const text = await readText(file, problems);
  return text === null ? null : parsed(file, text, problems);
}

/** The file's text; null when there is none, or none this process may read (said so). */
async function readText(file: string, problems: string[]): Promise<string | null> {
  try {
    return await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      problems.push(`${file}: ${NOT_GRANTED} (${error.message.split("\n")[0]})`);
      return null;
    }
    throw error;
  }
}

function parsed(file: string, text: string, problems: string[]): JsonValue | null {
  try {
    return parseDocument(text, languageOf(file), file);
  } catch (error) {
    if (!(error instanceof DocumentError)) throw error;
    problems.push(error.message);
    return null;
  }
}

function sameLaunch(a: FoundEntry, b: FoundEntry | null): boolean {
  return b !== null && JSON.stringify(a.launch) === JSON.stringify(b.launch) && a.file === b.file;
}

/** The entry the host uses, from what it said and the files. */
function chosen(profile: HostProfile, said: Said, found: FoundEntry[], problems: string[]) {
  switch (said.kind) {
    case "none":
      return null;
    case "scope":
      return found.find((entry) => entry.scope === said.scope) ?? null;
    case "entry": {
      const shape = readShape(profile.server, said.raw);
      if (!shape.ok) {
        problems.push(`the host's ${SERVER_NAME} entry cannot be read: ${shape.problem}`);
        return null;
      }
      const launch = JSON.stringify(shape.launch);
      return found.find((entry) => JSON.stringify(entry.launch) === launch) ??
        { ...shape, scope: said.scope ?? "resolved by the host", file: null };
    }
    case "line": {
      const first = found[0] ?? null;
      const words = first && [first.launch.command, ...first.launch.args].join(" ");
      if (first !== null && words !== said.line) {
        problems.push(`the host shows \`${said.line}\`, where doctor read \`${words}\``);
      }
      return first;
    }
    case "unknown":
      return found[0] ?? null;
  }
}

function interpret(reads: string, run: ProgramRun): Said {
  if (run.kind !== "ran") return { kind: "unknown", note: `${unanswered(run)}; read its files` };
  const out = plain(run.stdout);
  try {
    switch (reads) {
      case "json-entry":
        return run.code === 0 ? entrySaid(JSON.parse(out), null) : { kind: "none" };
      case "json-named": {
        if (run.code !== 0) return { kind: "none" };
        const named = valueAt(JSON.parse(out), [SERVER_NAME]);
        const source = valueAt(named, ["source"]);
        return entrySaid(named, typeof source === "string" ? source : null);
      }
      case "json-config": {
        if (run.code !== 0) return failed(run);
        const raw = valueAt(JSON.parse(out), ["mcp", SERVER_NAME]);
        return raw === undefined ? { kind: "none" } : entrySaid(raw, null);
      }
      case "scope-text": {
        const scope = /^\s*Scope: (\w+)/m.exec(out)?.[1]?.toLowerCase();
        if (run.code !== 0 || scope === undefined) return { kind: "none" };
        return { kind: "scope", scope, status: /^\s*Status: (.+)$/m.exec(out)?.[1].trim() ?? null };
      }
      case "status-line": {
        if (run.code !== 0) return failed(run);
        const line = new RegExp(`\\b${SERVER_NAME}: (.*) \\((stdio|sse|http)\\) - (.+)$`, "m")
          .exec(out + plain(run.stderr));
        return line === null
          ? { kind: "none" }
          : { kind: "line", line: line[1], status: line[3].trim() };
      }
    }
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  return { kind: "unknown", note: "its answer could not be read; read its files" };
}

function entrySaid(raw: unknown, scope: string | null): Said {
  if (raw === undefined || raw === null) return { kind: "none" };
  const enabled = valueAt(raw, ["enabled"]);
  const status = enabled === false ? "disabled" : enabled === true ? "enabled" : null;
  return { kind: "entry", raw: raw as JsonValue, status, scope };
}

function failed(run: Extract<ProgramRun, { kind: "ran" }>): Said {
  const said = (run.stderr || run.stdout).trim().split("\n").at(-1) ?? "";
  return { kind: "unknown", note: `it exited ${run.code} (${said}); read its files` };
}

/**
 * Gemini CLI starts no server in a folder it does not trust: trusted are a folder marked
 * TRUST_FOLDER and what lies below it, and the parent of one marked TRUST_PARENT and below;
 * DO_NOT_TRUST on the folder itself wins. Its user settings may switch folder trust off.
 */
async function folderTrust(
  profile: HostProfile,
  context: PlaceContext,
  documents: Map<string, JsonValue | null>,
  problems: string[],
): Promise<EntryReading["trust"]> {
  const template = profile.entry?.trustedFolders;
  if (template === undefined) return null;
  const file = expandPath(template, context);
  if (file === null || context.cwd === null) return null;
  for (const settings of documents.values()) {
    if (valueAt(settings, ["security", "folderTrust", "enabled"]) === false) {
      return { trusted: true, detail: "folder trust is switched off in its settings" };
    }
  }
  const rules = await readDocument(file, problems);
  const cwd = context.cwd;
  const under = (folder: string) =>
    cwd === folder || cwd.startsWith(`${folder.replace(/\/$/, "")}/`);
  let trusted = false;
  for (const [path, rule] of Object.entries(rules ?? {})) {
    if (rule === "DO_NOT_TRUST" && cwd === path) {
      return { trusted: false, detail: `${file} marks ${cwd} DO_NOT_TRUST` };
    }
    if (rule === "TRUST_FOLDER" && under(path)) trusted = true;
    if (rule === "TRUST_PARENT" && under(path.replace(/\/[^/]*\/?$/, "") || "/")) trusted = true;
  }
  return trusted
    ? { trusted: true, detail: `${file} trusts ${cwd}` }
    : { trusted: false, detail: `${file} does not trust ${cwd}` };
}
