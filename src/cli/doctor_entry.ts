/**
 * `doctor --host NAME`: the checks on the entry the host really has. It reads the entry
 * (host/read_entry.ts), then runs exactly that command with its arguments and environment,
 * initializes MCP with it and reads diagnostics and health through it, and names each drift:
 * the socket it tries against where the daemon answers, a command that is gone or an older
 * bridge, fields setup would write otherwise, the approval mode against what the host can do,
 * and Gemini CLI's folder trust. Nothing is OK while the host's own entry cannot reach the
 * daemon.
 */
import { z } from "zod";
import type { Client } from "@modelcontextprotocol/client";
import type { HostProfile } from "../profiles/profile.ts";
import { type Launch, serveOption } from "../profiles/entry_shape.ts";
import { locateSocket } from "../shared/socket_location.ts";
import type { EntryPlace, PlaceContext } from "../profiles/entry_places.ts";
import {
  APPROVAL_MODES,
  type ApprovalMode,
  choiceOf,
  DEFAULT_APPROVAL_MODE,
  labelOf,
  PRODUCT,
  SOFTWARE_VERSION,
  TOOLSETS,
} from "../shared/options.ts";
import { shellJoin, shellQuote } from "../shared/shell.ts";
import { commandLine } from "../shared/hints.ts";
import { envelopeOf } from "../results/result.ts";
import { approvalReport } from "./doctor_approval.ts";
import type { Report, Verdict } from "./doctor_report.ts";
import { expectedLaunch } from "./doctor_host.ts";
import { startDaemonStep } from "./daemon_hint.ts";
import { type EntryReading, readEntry } from "./host/read_entry.ts";
import { startEntry } from "./host/entry_process.ts";

/** What doctor's own look at the daemon found, to set the entry's against. */
export interface OwnDaemon {
  socket: string;
  /** The daemon's pid when it answered doctor's own bridge; null when nothing answered. */
  pid: number | null;
}

/** The options of doctor's that shape an entry, each only when given. */
export interface EntryOptions {
  label?: string;
  toolset?: string;
  approval?: string;
}

export interface EntryInputs {
  profile: HostProfile;
  context: PlaceContext;
  own: OwnDaemon;
  /** What doctor was given: setup's next step passes it, else keeps what the entry has. */
  given: EntryOptions;
  /** The `--approval` mode doctor was asked about (its own line reports it). */
  approval: ApprovalMode;
}

/** The entry's own serve options a fix keeps, each when serve would take it. */
const KEPT: Record<keyof EntryOptions, (value: string) => string | undefined> = {
  label: labelOf,
  toolset: (value) => choiceOf(value, TOOLSETS),
  approval: (value) => choiceOf(value, APPROVAL_MODES),
};

/**
 * The `setup` a fix needs, said once at the end: by then doctor knows where PortReeve answers,
 * which the step names, so pasting it never points a working entry at a socket where nothing
 * listens, and it keeps the entry's own --label, --toolset and --approval.
 */
class SetupFix {
  #verdicts: Verdict[] = [];
  /** Where the entry's bridge reached PortReeve, once known. */
  reached: string | null = null;

  constructor(private readonly inputs: EntryInputs, private readonly launch: Launch | null) {}

  need(verdict: Verdict): void {
    this.#verdicts.push(verdict);
  }

  /** PortReeve's socket as far as doctor knows it: where it answered, else the entry's, else doctor's. */
  socket(): string {
    const { own } = this.inputs;
    if (this.reached !== null) return this.reached;
    if (own.pid !== null) return own.socket;
    const named = this.launch === null ? undefined : serveOption(this.launch.args, "--socket");
    return named?.startsWith("/") ? named : own.socket;
  }

  /** `setup`'s words after `--host NAME`. */
  words(): string[] {
    const words = ["--socket", this.socket()];
    for (const [name, valid] of Object.entries(KEPT)) {
      const given = this.inputs.given[name as keyof EntryOptions];
      const own = this.launch === null ? undefined : serveOption(this.launch.args, `--${name}`);
      const value = given ?? (own === undefined ? undefined : valid(own));
      if (value !== undefined) words.push(`--${name}`, value);
    }
    return words;
  }

  /** The entry setup would write with those words, or null when it cannot be rendered. */
  expected(): Launch | null {
    const words = this.words();
    const option = (name: string) => serveOption(words, `--${name}`);
    try {
      const socket = locateSocket(this.socket());
      const { profile } = this.inputs;
      return expectedLaunch(
        profile.id,
        socket,
        option("label"),
        option("toolset") ?? "full",
        option("approval"),
      );
    } catch {
      return null;
    }
  }

  report(report: Report): void {
    const step = setupStep(this.inputs.profile, this.words());
    for (const verdict of this.#verdicts) report.needs(verdict, step);
  }
}

const ENTRY_DIAGNOSTICS = z.object({
  bridge: z.object({ socketPath: z.string(), socketSource: z.string() }),
  daemon: z.object({ available: z.boolean() }),
  error: z.object({ message: z.string() }).optional(),
});
const ENTRY_HEALTH = z.object({ softwareVersion: z.string(), pid: z.int() });

/**
 * The checks on the host's own entry; resolves to the socket where the entry's bridge reached
 * PortReeve, or null when it did not.
 */
export async function entryChecks(report: Report, inputs: EntryInputs): Promise<string | null> {
  const { profile } = inputs;
  const reading = await readEntry(profile, inputs.context);
  describeReading(report, reading, profile);
  if (reading.trust !== null && !reading.trust.trusted) {
    report.add(
      "fail",
      "folder trust",
      `${profile.label} keeps MCP servers disabled here: ${reading.trust.detail}`,
    );
    report.needs(
      "misconfigured",
      `Trust the folder you work in: run \`/permissions\` inside ${profile.label} there and choose "Trust folder".`,
    );
  }
  for (const { file, line, column, what } of reading.refused) {
    report.add(
      "fail",
      "host files",
      `${file}:${line}:${column}: ${what}, which ${profile.label} cannot read: it takes no server from this file`,
    );
    report.needs(
      "misconfigured",
      `Take ${what} out of ${file} (line ${line}, column ${column}), then start a new ${profile.label} session.`,
    );
  }
  const entry = reading.entry;
  if (entry === null && reading.denied) {
    report.add("fail", "host entry", "this process may not read the host's files (its grant)");
    report.needs("misconfigured", GRANTED);
    return null;
  }
  const fix = new SetupFix(inputs, entry?.launch ?? null);
  if (entry === null) {
    report.add(
      "fail",
      "host entry",
      `${profile.label} has no ${"portreeve"} entry (looked in ${lookedIn(reading.places)})`,
    );
    fix.need("missing");
    fix.report(report);
    return null;
  }
  const where = entry.file === null ? entry.scope : `${entry.scope} scope, ${entry.file}`;
  report.add("info", "host entry", `${where}: ${launchLine(entry.launch)}`);
  for (const difference of entry.differences) report.add("warn", "host entry", difference);
  if (entry.differences.length > 0) fix.need("ok");
  approvalCheck(report, inputs, entry.launch, fix);
  await runChecks(report, inputs, entry.launch, fix);
  const expected = fix.expected();
  if (expected !== null && !sameLaunch(entry.launch, expected)) {
    report.add("warn", "host entry", `setup would write: ${launchLine(expected)}`);
  }
  fix.report(report);
  return fix.reached;
}

/** Each file doctor read, once, with the scopes it holds. */
export function lookedIn(places: readonly EntryPlace[]): string {
  const scopes = new Map<string, string[]>();
  for (const place of places) {
    scopes.set(place.file, [...scopes.get(place.file) ?? [], place.scope]);
  }
  return [...scopes].map(([file, names]) => `${file} (${names.join(" and ")} scope)`).join(", ");
}

/** What to do when this process lacks the grant doctor --host plans for itself. */
const GRANTED = `Run doctor --host through the installed \`${PRODUCT}\` or \`deno task doctor\`, ` +
  "which grant it the host's files and commands (a compiled binary's grant is fixed when built).";

function setupStep(profile: HostProfile, words: string[] = []): string {
  return `Run \`${
    commandLine(["setup", "--host", profile.id, ...words])
  }\`, then start a new ${profile.label} session.`;
}

function describeReading(report: Report, reading: EntryReading, profile: HostProfile): void {
  if (reading.host !== null) {
    const said = reading.host.note ?? reading.host.status ?? "shows no status";
    report.add("info", `\`${reading.host.command}\``, said);
  }
  for (const problem of reading.problems) report.add("warn", "host files", problem);
  for (const other of reading.unused) {
    report.add(
      "info",
      "host entry",
      `also in ${
        other.file ?? other.scope
      } (${other.scope} scope), which ${profile.label} does not use here`,
    );
  }
}

/** The entry's own `--approval`, when it is not the mode doctor was asked about. */
function approvalCheck(report: Report, inputs: EntryInputs, launch: Launch, fix: SetupFix): void {
  const { profile } = inputs;
  const given = serveOption(launch.args, "--approval");
  const mode = given === undefined ? DEFAULT_APPROVAL_MODE : choiceOf(given, APPROVAL_MODES);
  if (mode === undefined) {
    report.add("fail", "host entry", `it passes --approval ${given}, which serve refuses`);
    fix.need("misconfigured");
  } else if (mode !== inputs.approval) {
    const status = profile.asksThroughMcp === false && mode === "required" ? "warn" : "info";
    report.add(status, `approval (${profile.id}, the entry's)`, approvalReport(mode, profile.id));
  }
}

async function runChecks(
  report: Report,
  inputs: EntryInputs,
  launch: Launch,
  fix: SetupFix,
): Promise<void> {
  const started = await startEntry(launch);
  if (!started.ok) {
    const why = started.reason === "gone"
      ? `${launch.command} does not exist (moved, or an older install removed)`
      : started.message;
    report.add("fail", "host entry runs", why);
    if (started.reason === "denied") report.needs("misconfigured", GRANTED);
    else fix.need("misconfigured");
    return;
  }
  try {
    const server = started.client.getServerVersion();
    report.add(
      "ok",
      "host entry runs",
      `MCP initialize: ${server?.name ?? "?"} ${server?.version ?? "?"}`,
    );
    if (server?.version !== undefined && server.version !== SOFTWARE_VERSION) {
      report.add(
        "warn",
        "host entry runs",
        `a bridge ${
          newer(server.version) ? "newer" : "older"
        } than this ${PRODUCT} ${SOFTWARE_VERSION}`,
      );
      fix.need("ok");
    }
    await throughEntry(report, started.client, inputs, fix);
  } finally {
    await started.close();
  }
}

async function throughEntry(
  report: Report,
  client: Client,
  inputs: EntryInputs,
  fix: SetupFix,
) {
  const read = async <S extends z.ZodType>(name: string, schema: S) => {
    const envelope = envelopeOf(await client.callTool({ name, arguments: {} }));
    const data = envelope.ok ? schema.safeParse(envelope.data) : undefined;
    return data?.success ? data.data as z.output<S> : undefined;
  };
  const diagnostics = await read("portreeve_diagnostics", ENTRY_DIAGNOSTICS);
  if (diagnostics === undefined) {
    report.add("fail", "through the entry", "portreeve_diagnostics gave nothing doctor can read");
    fix.need("misconfigured");
    return;
  }
  const { socketPath, socketSource } = diagnostics.bridge;
  const own = inputs.own;
  const tries = `the entry's bridge uses ${socketPath} (from ${socketSource})`;
  if (!diagnostics.daemon.available) {
    if (own.pid !== null) {
      report.add(
        "fail",
        "through the entry",
        `${tries}, where nothing answers; the daemon answers at ${own.socket}`,
      );
      fix.need("misconfigured");
    } else {
      report.add(
        "fail",
        "through the entry",
        `${tries}: ${diagnostics.error?.message ?? "nothing answers"}`,
      );
      report.needs("unavailable", startDaemonStep());
    }
    return;
  }
  fix.reached = socketPath;
  const health = await read("portreeve_health", ENTRY_HEALTH);
  report.add(
    health === undefined ? "warn" : "ok",
    "through the entry",
    `${tries}: ${
      health === undefined
        ? "health unreadable"
        : `PortReeve ${health.softwareVersion}, pid ${health.pid}`
    }`,
  );
  if (own.pid !== null && health !== undefined && health.pid !== own.pid) {
    report.add(
      "warn",
      "through the entry",
      `another daemon (pid ${own.pid}) answers at ${own.socket}`,
    );
  } else if (socketPath !== own.socket) {
    report.add(
      "warn",
      "through the entry",
      own.pid === null
        ? `nothing answers at ${own.socket}, where doctor looked; the entry reaches PortReeve at ${socketPath}: give doctor and config --socket ${socketPath}`
        : `doctor checked ${own.socket}; the entry reaches ${socketPath}`,
    );
  }
}

function sameLaunch(a: Launch, b: Launch): boolean {
  const sorted = (env: Record<string, string>) => JSON.stringify(Object.entries(env).sort());
  return a.command === b.command && JSON.stringify(a.args) === JSON.stringify(b.args) &&
    sorted(a.env) === sorted(b.env);
}

function launchLine(launch: Launch): string {
  const env = Object.entries(launch.env).map(([key, value]) => `${key}=${shellQuote(value)}`);
  return [...env, shellJoin([launch.command, ...launch.args])].join(" ");
}

/** Whether `version` is newer than this bridge's (dotted numbers compared in order). */
function newer(version: string): boolean {
  const parts = (v: string) => v.split(/[.-]/).map((part) => Number.parseInt(part, 10) || 0);
  const [theirs, ours] = [parts(version), parts(SOFTWARE_VERSION)];
  for (let i = 0; i < Math.max(theirs.length, ours.length); i++) {
    if ((theirs[i] ?? 0) !== (ours[i] ?? 0)) return (theirs[i] ?? 0) > (ours[i] ?? 0);
  }
  return false;
}
