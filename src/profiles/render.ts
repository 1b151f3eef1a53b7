/**
 * Pure rendering of a host's configuration from the inputs, the installation and the socket,
 * all given by the caller: this room looks nothing up itself.
 */
import { confinedFlags, RUN_ENV } from "../shared/permissions.ts";
import { type SocketLocation, SocketPathError } from "../shared/socket_location.ts";
import { findHost, unknownHostMessage } from "./hosts.ts";
import type { ConfigurationLanguage, HostProfile } from "./profile.ts";
import type { JsonValue } from "../shared/json.ts";
import type { Installation } from "../shared/installation.ts";
import { shellJoin } from "../shared/shell.ts";
import { approvalWords, type PersonGets, personGets } from "./approval_words.ts";
import { expand, expandWords } from "./template.ts";
import { stringifyToml } from "./toml.ts";
import {
  APPROVAL_MODES,
  type ApprovalMode,
  choiceOf,
  DEFAULT_APPROVAL_MODE,
  labelOf,
  type Toolset,
  TOOLSETS,
} from "../shared/options.ts";

/** The command `--portable` emits; users keep it on PATH. */
const PORTABLE_COMMAND = "portreeve-mcp";

export interface ConfigInput {
  host: string;
  portable: boolean;
  label?: string;
  toolset?: string;
  /** `serve --approval`; rendered only when it is not the default (`required`). */
  approval?: string;
  /** The socket this user's bridge would use (`discoverSocket`). */
  socket: SocketLocation;
  /**
   * How to print this entry again (or, compiled, build the binary again), as a phrase with the
   * command in backticks, pasteable for this installation; the socket follows `--socket`.
   */
  rerun?: string;
  /**
   * The `setup` command that writes this same entry, pasteable for this installation; shown
   * for hosts whose entry setup can locate.
   */
  setup?: string;
  /** Warnings about the exact command's paths (`unstablePathWarnings`), shown as notes. */
  warnings?: readonly string[];
}

export interface ConfigResult {
  host: string;
  hostLabel: string;
  mode: "exact" | "portable";
  command: string;
  args: string[];
  env: Record<string, string>;
  configurationLanguage: ConfigurationLanguage;
  /** Where the configuration text goes, in words. */
  configurationTarget: string;
  configuration: string;
  setupCommand: string | null;
  /** The host's own install link for this entry, or null when it has none. */
  installLink: string | null;
  /** Whether the host asks its user through MCP; null when it depends on the host. */
  asksThroughMcp: boolean | null;
  /** The largest tool result the host shows its model whole, in bytes; null when unknown. */
  resultLimitBytes: number | null;
  /** Whether the bridge flags a failed call to this host with `isError` (false: Gemini CLI). */
  flagsToolErrors: boolean;
  /** The socket passed with `--socket`, or null when the bridge finds it at start-up. */
  socket: string | null;
  /** What a person gets before a consequential change; a note says it in words. */
  approval: { mode: ApprovalMode; asksThroughMcp: boolean | null; person: PersonGets };
  notes: string[];
}

type ConfigErrorCode = "usage" | "socket" | "installation";

export class ConfigError extends Error {
  override name = "ConfigError";
  constructor(readonly code: ConfigErrorCode, message: string) {
    super(message);
  }
}

/** Trims and checks a label: 1-64 characters, starting with a letter or digit. */
function validateLabel(raw: string): string {
  const label = labelOf(raw);
  if (label === undefined) {
    throw new ConfigError(
      "usage",
      `invalid --label ${JSON.stringify(raw)}: use 1-64 characters from A-Z a-z 0-9 . _ -, ` +
        "starting with a letter or digit",
    );
  }
  return label;
}

function validateToolset(raw: string): Toolset {
  const found = choiceOf(raw, TOOLSETS);
  if (found === undefined) {
    throw new ConfigError(
      "usage",
      `unknown --toolset ${JSON.stringify(raw)}; valid toolsets: ${TOOLSETS.join(", ")}`,
    );
  }
  return found;
}

function validateApproval(raw: string): ApprovalMode {
  const found = choiceOf(raw, APPROVAL_MODES);
  if (found === undefined) {
    throw new ConfigError(
      "usage",
      `unknown --approval ${JSON.stringify(raw)}; valid modes: ${APPROVAL_MODES.join(", ")}`,
    );
  }
  return found;
}

function requireHost(id: string): HostProfile {
  const profile = findHost(id);
  if (profile === undefined) throw new ConfigError("usage", unknownHostMessage(id));
  return profile;
}

/**
 * Whether the printed command names the socket. Exact commands always do: their permission
 * grant names one socket, and a host's different environment must not point the bridge
 * elsewhere. Portable commands do when the socket came from `--socket`, `PORTREEVE_SOCKET`,
 * `PORTREEVE_HOME` or `XDG_STATE_HOME` (hosts such as Codex pass only a few variables to
 * servers); a HOME-derived default is left to the bridge so the entry stays portable across
 * machines.
 */
function pinsSocket(portable: boolean, socket: SocketLocation): boolean {
  return !portable || (socket.source !== "HOME" && socket.source !== "macOS default");
}

/** `serve` and its options, in a fixed order. */
function serveArgs(
  socket: string | null,
  label: string | undefined,
  toolset: Toolset | undefined,
  approval?: ApprovalMode,
): string[] {
  const args = ["serve"];
  if (socket !== null) args.push("--socket", socket);
  if (label !== undefined) args.push("--label", label);
  if (toolset !== undefined && toolset !== "full") args.push("--toolset", toolset);
  if (approval !== undefined && approval !== DEFAULT_APPROVAL_MODE) {
    args.push("--approval", approval);
  }
  return args;
}

/** What an entry is made of, for one host: the values its templates expand with. */
export interface EntryValues {
  profile: HostProfile;
  mode: ApprovalMode;
  socket: string | null;
  command: string;
  args: string[];
  env: Record<string, string>;
  /** The host's entry, as its file holds it under the server's name. */
  server: JsonValue;
}

/** The entry for `input` (what `setup` writes); throws ConfigError for input it cannot honour. */
export function renderEntry(input: ConfigInput, installation: Installation): EntryValues {
  const profile = requireHost(input.host);
  const label = input.label === undefined ? undefined : validateLabel(input.label);
  const toolset = input.toolset === undefined ? undefined : validateToolset(input.toolset);
  const approval = input.approval === undefined ? undefined : validateApproval(input.approval);
  const mode = approval ?? DEFAULT_APPROVAL_MODE;
  const socket = pinsSocket(input.portable, input.socket) ? input.socket.path : null;
  const serve = serveArgs(socket, label, toolset, approval);
  const { command, args } = input.portable
    ? { command: PORTABLE_COMMAND, args: serve }
    : exactCommand(installation, input.socket.path, serve);
  const env: Record<string, string> = { ...RUN_ENV };
  const server = expandOrFail(profile.server, { command, args, env });
  return { profile, mode, socket, command, args, env, server };
}

/** The host's setup command for the entry, as words, or null when it has none. */
export function setupWords(entry: EntryValues): string[] | null {
  const { profile, command, args, env, server } = entry;
  return profile.setupCommand === null
    ? null
    : expandWords(profile.setupCommand, { command, args, env, server });
}

/** Renders the configuration; throws ConfigError for input it cannot honour. */
export function renderConfig(input: ConfigInput, installation: Installation): ConfigResult {
  const entry = renderEntry(input, installation);
  const { profile, mode, socket, command, args, env, server } = entry;
  const values = { command, args, env, server };
  const configuration = formatConfiguration(
    profile.configurationLanguage,
    expandOrFail(profile.configuration, values),
  );
  const words = setupWords(entry);
  const setupCommand = words === null ? null : shellJoin(words);
  return {
    host: profile.id,
    hostLabel: profile.label,
    mode: input.portable ? "portable" : "exact",
    command,
    args,
    env,
    configurationLanguage: profile.configurationLanguage,
    configurationTarget: profile.configurationTarget,
    configuration,
    setupCommand,
    installLink: profile.installLink === null ? null : expandWords(profile.installLink, values)
      .join(""),
    asksThroughMcp: profile.asksThroughMcp,
    resultLimitBytes: profile.resultLimitBytes,
    flagsToolErrors: profile.flagsToolErrors,
    socket,
    approval: { mode, asksThroughMcp: profile.asksThroughMcp, person: personGets(mode, profile) },
    notes: [
      ...modeNotes(input, installation),
      approvalWords(mode, profile),
      ...profile.notes,
      ...setupNotes(input, profile),
      NOTHING_WRITTEN,
    ],
  };
}

function exactCommand(
  installation: Installation,
  socketPath: string,
  serve: string[],
): { command: string; args: string[] } {
  if (installation.kind === "compiled") return { command: installation.execPath, args: serve };
  if (installation.kind === "installed" && installation.launcher !== undefined) {
    return { command: installation.launcher, args: serve };
  }
  if (installation.entryPath === null) {
    throw new ConfigError(
      "installation",
      "cannot print an exact command: the entry module is not a local file; use --portable",
    );
  }
  return {
    command: installation.execPath,
    args: ["run", ...grantFor(socketPath), installation.entryPath, ...serve],
  };
}

/** The confinement flags for `socketPath`, or a config error when Deno cannot grant it. */
function grantFor(socketPath: string): string[] {
  try {
    return confinedFlags(socketPath);
  } catch (error) {
    if (error instanceof SocketPathError) throw new ConfigError("socket", error.message);
    throw error;
  }
}

function expandOrFail(template: JsonValue, values: Parameters<typeof expand>[1]): JsonValue {
  const value = expand(template, values);
  if (value === undefined) throw new Error("profile template expanded to nothing");
  return value;
}

function formatConfiguration(language: ConfigurationLanguage, value: JsonValue): string {
  if (language === "json") return JSON.stringify(value, null, 2);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error("a TOML configuration must be a table");
  }
  return stringifyToml(value).trimEnd();
}

/** The way to let `setup` write the entry instead of pasting it, where setup can. */
function setupNotes(input: ConfigInput, profile: HostProfile): string[] {
  if (input.setup === undefined || profile.entry === null) return [];
  return [
    `Or let setup write it: \`${input.setup}\` keeps every other byte of the host's ` +
    "configuration; add --dry-run to see the change first, --remove to take the entry out again.",
  ];
}

const NOTHING_WRITTEN = "Preview only: no host configuration file was read or changed.";

function modeNotes(input: ConfigInput, installation: Installation): string[] {
  const { path, source } = input.socket;
  if (!input.portable) {
    const again = input.rerun === undefined
      ? "run config again with the new path"
      : `print a new entry with ${input.rerun}, the new path after --socket`;
    const grant = {
      compiled: `This binary's permissions were fixed when it was compiled and cover only the ` +
        `socket ${path}; if the socket moves, compile it again for the new socket${
          input.rerun === undefined ? "" : ` (${input.rerun}, the new path after --socket)`
        }.`,
      installed: `The launcher grants the bridge, each time it starts, only the socket this ` +
        `entry names (${path}); if the socket moves, ${again}.`,
      script: `The Deno permissions in this command cover only the socket ${path}; if the ` +
        `socket moves, ${again}.`,
    }[installation.kind];
    return [
      "Absolute paths: hosts started from a GUI with a minimal PATH still find the bridge.",
      grant,
      ...(input.warnings ?? []),
    ];
  }
  const onPath =
    `\`${PORTABLE_COMMAND}\` must be on the PATH the host starts servers with; GUI-started ` +
    "hosts often see only /usr/bin:/bin.";
  if (source === "flag") return [onPath, `The socket ${path} is pinned with --socket as given.`];
  if (pinsSocket(true, input.socket)) {
    return [
      onPath,
      `The socket ${path} is pinned with --socket because the host may not pass ${source} on.`,
    ];
  }
  return [onPath, `The bridge finds its socket at start-up (here: ${path}).`];
}
