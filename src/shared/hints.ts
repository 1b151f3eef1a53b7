/**
 * Commands printed for a person (doctor, config, install, the simulator, the bridge's log and
 * its human-facing error hints), spelled so they run when pasted as printed by the reader at
 * hand. The reader runs portreeve-mcp in one of these forms, told apart from the running
 * process alone, which needs no permission (Deno.execPath(), the entry module, this module's
 * own URL):
 *
 * - a program: the installed launcher, a release folder's bin/portreeve-mcp, or a compiled
 *   binary, printed by its absolute path;
 * - a checkout run with `deno task`, `deno` being on PATH;
 * - a checkout run with `npx -y deno@VERSION task`, told apart by Deno running from npx's
 *   cache (a reader taught that form may have no `deno` on PATH).
 *
 * Every printer renders its commands through `commandLine`, `taskCommand`, `taskStep` or
 * `taskUsage` below; nothing else spells `deno task` or a launcher path.
 */
import { fileURLToPath } from "node:url";
import { denoEnv, discoverSocket, type SocketEnvVar } from "./socket_location.ts";
import { detectInstallation, type Installation } from "./installation.ts";
import { shellJoin, shellQuote } from "./shell.ts";
import { LAUNCHER_NAME, NPM_PACKAGE } from "./install_layout.ts";

export const PORTREEVE_PROJECT = "https://github.com/TrentBrown/portreeve";

/** How the reader runs portreeve-mcp. */
export type ReaderForm =
  /** A program run by its path: launcher, release folder or compiled binary. */
  | { kind: "program"; program: string }
  /** `deno` (or `npx -y deno@V`) `task …` in `checkout`; `deno` holds those words. */
  | { kind: "checkout"; checkout: string; deno: readonly string[] }
  /** Nothing recognisable (an entry that is not a local file): the bare command name. */
  | { kind: "unknown" };

/** Where npx unpacks the packages it runs; npm may delete any entry at any time. */
const NPX_CACHE = /\/_npx\//;

/** npx running this very Deno: all a reader needs besides a checkout is Node and npm. */
function npxDeno(): string[] {
  return ["npx", "-y", `deno@${Deno.version.deno}`];
}

/** The words that start Deno for this reader: `deno`, or npx's form when Deno came from there. */
function denoWords(execPath: string): string[] {
  return NPX_CACHE.test(execPath) ? npxDeno() : ["deno"];
}

/** The checkout a source or dist/ bundle run comes from, or null. */
function checkoutOf(entryPath: string | null): string | null {
  if (entryPath === null) return null;
  if (entryPath.endsWith("/dist/main.js")) return entryPath.slice(0, -"/dist/main.js".length);
  if (entryPath.endsWith("/main.ts")) return entryPath.slice(0, -"/main.ts".length);
  return null;
}

const THIS_MODULE = "/src/shared/hints.ts";

/** The checkout this very module lies in, when it runs from source (any entry: a script too). */
function sourceCheckout(): string | null {
  if (!import.meta.url.startsWith("file:")) return null;
  const path = fileURLToPath(import.meta.url);
  return path.endsWith(THIS_MODULE) ? path.slice(0, -THIS_MODULE.length) : null;
}

/** The reader's form, from the running program (or the given installation, for tests). */
export function readerForm(
  installation: Installation = detectInstallation(),
  checkout: string | null = sourceCheckout(),
): ReaderForm {
  if (installation.kind === "compiled") return { kind: "program", program: installation.execPath };
  if (installation.kind === "installed" && installation.launcher !== undefined) {
    return { kind: "program", program: installation.launcher };
  }
  const root = checkoutOf(installation.entryPath) ?? checkout;
  if (root === null) return { kind: "unknown" };
  return { kind: "checkout", checkout: root, deno: denoWords(installation.execPath) };
}

/** Bridge commands that have a task of the same name in a checkout. */
const BRIDGE_TASKS = ["serve", "config", "doctor", "setup"];

/** A pasteable `portreeve-mcp <words…>` (a bridge command and its arguments) for the reader. */
export function commandLine(words: readonly string[], form: ReaderForm = readerForm()): string {
  switch (form.kind) {
    case "program":
      return shellJoin([form.program, ...words]);
    case "unknown":
      return shellJoin(["portreeve-mcp", ...words]);
    case "checkout": {
      const [command, ...rest] = words;
      const task = BRIDGE_TASKS.includes(command)
        ? [command, ...rest]
        : ["confined", "run", "main.ts", ...words];
      return inCheckout(form, task);
    }
  }
}

function inCheckout(
  form: { checkout: string; deno: readonly string[] },
  task: readonly string[],
  env = "",
): string {
  return `cd ${shellQuote(form.checkout)} && ${env}${shellJoin([...form.deno, "task", ...task])}`;
}

/** `NAME=value ` assignments that prefix a command, each value quoted. */
function envPrefix(env: Readonly<Record<string, string>>): string {
  return Object.entries(env).map(([name, value]) => `${name}=${shellQuote(value)} `).join("");
}

/**
 * A pasteable `deno task NAME ARGS…` for the reader. From a checkout it changes into that
 * checkout first; for a program (which has none) it is the npx form, to be run in a checkout:
 * `needsCheckout` says so, and `taskStep` puts it in words.
 */
export function taskCommand(
  task: string,
  args: readonly string[] = [],
  form: ReaderForm = readerForm(),
  env: Readonly<Record<string, string>> = {},
): { command: string; needsCheckout: boolean } {
  if (form.kind === "checkout") {
    return { command: inCheckout(form, [task, ...args], envPrefix(env)), needsCheckout: false };
  }
  return {
    command: envPrefix(env) + shellJoin([...npxDeno(), "task", task, ...args]),
    needsCheckout: true,
  };
}

/** `taskCommand` as a phrase in backticks, with "in a portreeve-mcp checkout" when needed. */
export function taskStep(
  task: string,
  args: readonly string[] = [],
  form: ReaderForm = readerForm(),
  env: Readonly<Record<string, string>> = {},
): string {
  const { command, needsCheckout } = taskCommand(task, args, form, env);
  return `\`${command}\`${needsCheckout ? ` in a ${CHECKOUT}` : ""}`;
}

const CHECKOUT = "portreeve-mcp checkout";

/**
 * How the reader starts a task, for usage lines printed by that task itself (the reader is in
 * the checkout already): `deno task NAME` or `npx -y deno@V task NAME`.
 */
export function taskUsage(task: string, form: ReaderForm = readerForm()): string {
  return shellJoin([...(form.kind === "checkout" ? form.deno : npxDeno()), "task", task]);
}

/**
 * Places a printed host command must not depend on: npx's cache and temporary folders.
 * Matched on the path alone; the confined process cannot look further.
 */
const UNSTABLE_PLACES: readonly { pattern: RegExp; what: string }[] = [
  { pattern: NPX_CACHE, what: "npx's cache, which npm may delete at any time" },
  {
    pattern: /^(?:\/private)?\/(?:tmp|var\/tmp|var\/folders)\//,
    what: "a temporary folder, which the system may clear",
  },
];

/**
 * One warning per path of a source run's host command that lies in a cache or a temporary
 * folder, with the remedy: an install, which keeps its own copy of Deno and the bundle.
 * `config` and `doctor` both print these.
 */
export function unstablePathWarnings(
  installation: Installation,
  form: ReaderForm = readerForm(installation),
): string[] {
  const launcher = installation.kind === "installed" ? installation.launcher : undefined;
  if (launcher !== undefined && NPX_CACHE.test(launcher)) {
    // `npx -y @portreeve/mcp config …`: a first look, not a place for a host entry to point.
    return [
      `Warning: this ${LAUNCHER_NAME} runs from npx's cache (${launcher}), which npm may ` +
      "delete at any time, and a host will fail to start the bridge once it is gone. " +
      `\`npm install -g ${NPM_PACKAGE}\` installs a copy that stays; then use the entry its ` +
      `\`${LAUNCHER_NAME} config\` prints.`,
    ];
  }
  if (installation.kind !== "script") return [];
  const paths = [
    { role: "the Deno executable", path: installation.execPath },
    { role: "the entry file", path: installation.entryPath ?? "" },
  ];
  const warnings: string[] = [];
  for (const { role, path } of paths) {
    const place = UNSTABLE_PLACES.find(({ pattern }) => pattern.test(path));
    if (place === undefined) continue;
    warnings.push(
      `Warning: ${role} ${path} lies in ${place.what}, and a host will fail to start the ` +
        `bridge once it is gone. ${taskStep("install", [], form)} installs a copy that keeps ` +
        "its own Deno and bundle; then use the host entry its launcher's config prints.",
    );
  }
  return warnings;
}

function granted(path: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "read", path }).state === "granted";
  } catch {
    return false;
  }
}

/**
 * The sockets this process can name without knowing its grant: PORTREEVE_SOCKET's, then the
 * platform default (a compiled binary's grant is the socket it was built for, which it cannot
 * see).
 */
function knownSockets(): string[] {
  const known: string[] = [];
  const withoutVariable = (name: SocketEnvVar) =>
    name === "PORTREEVE_SOCKET" ? undefined : denoEnv(name);
  for (const env of [denoEnv, withoutVariable]) {
    try {
      const path = discoverSocket(undefined, env).path;
      if (!known.includes(path)) known.push(path);
    } catch {
      // Unset or refused: nothing to name from there.
    }
  }
  return known;
}

/** The socket this process's permission grant covers, when it is one of `knownSockets`. */
export function grantedSocket(): string | undefined {
  return knownSockets().find(granted);
}

/** How a refusal names the grant: the socket it covers, else which it does not. */
export function grantDescription(): string {
  const usual = grantedSocket();
  if (usual) return `its Deno permission grant names ${usual}`;
  const known = knownSockets();
  return known.length === 0
    ? "its Deno permission grant names another socket"
    : `its Deno permission grant names another socket than ${known.join(" or ")}`;
}

/** Whether this process may use `socketPath`; a message saying what to do when it may not. */
export function grantProblem(socketPath: string): string | undefined {
  if (granted(socketPath)) return undefined;
  return notGrantedMessage(socketPath);
}

/** The socket is outside this process's Deno permission grant (not a daemon problem). */
function notGrantedMessage(socketPath: string): string {
  const usual = grantedSocket();
  const grant = grantDescription();
  const config = commandLine(["config", "--socket", socketPath, "--host", "claude"]);
  return `This bridge may not use ${socketPath}: ${grant}. This is a permission grant, not an ` +
    `unreachable daemon. Print a command granted for that socket with \`${config}\` (--host ` +
    `names your agent host) and relaunch the bridge with it${
      usual ? `, or drop --socket to use ${usual}` : ""
    }.`;
}
