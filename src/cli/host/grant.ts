/**
 * The permission grant of `doctor --host NAME` and `setup --host NAME`: what each needs and
 * nothing else, planned by the bridge itself in steps, because each step's grant depends on
 * what the one before could see. The runner (the installed launcher, or `deno task` through
 * scripts/confined.ts) runs `grant ARGS…` with `planFlags`, then again with the flags it
 * printed as long as the first line says `plan`, and finally the command with the flags after
 * `run`, one flag a line:
 *
 *   1. `planFlags`: only the environment variables the host's places name (HOME, PWD,
 *      CODEX_HOME…), to find its files. It prints a grant to read exactly those files.
 *   2. With that, it reads them: for doctor, the commands the entries there start; for setup,
 *      which file it will edit, followed through a link. It prints the command's grant.
 *   3. doctor: the bridge's own confinement (one socket) plus reading those files and running
 *      the host's own program and the entries' commands. setup: reading those files, and either
 *      writing the one file it edits (with its temporary and backup) or running the host's own
 *      program; no socket at all.
 *
 * Every other command (and doctor without --host or with generic) runs under
 * `confinedFlags(socket)` alone, as before: `serve`'s confinement does not grow.
 */
import { confinedFlags, fetchlessFlags, type RunForm } from "../../shared/permissions.ts";
import { locateSocket, SOCKET_ENV_VARS } from "../../shared/socket_location.ts";
import { findHost, HOST_PROFILES } from "../../profiles/hosts.ts";
import type { HostProfile } from "../../profiles/profile.ts";
import {
  entryPlaces,
  expandPath,
  type PlaceContext,
  placeVariables,
} from "../../profiles/entry_places.ts";
import { serveOption } from "../../profiles/entry_shape.ts";
import { writtenPaths } from "./file_write.ts";
import { readEntry } from "./read_entry.ts";
import type { CommandIO } from "../options.ts";
import { hostContext } from "./context.ts";

/** The commands that get a grant of their own when they name a host. */
export const HOST_COMMANDS: readonly string[] = ["doctor", "setup"];

/** Whether `args` (a command and its options) need the staged grant. */
export function needsHostGrant(args: readonly string[]): boolean {
  const [command, ...rest] = args;
  const host = serveOption(rest, "--host");
  return HOST_COMMANDS.includes(command) && host !== undefined && host !== "generic";
}

/** Every variable any host's places read, with the socket's: the first step's whole grant. */
export function planVariables(): string[] {
  const names = new Set<string>(SOCKET_ENV_VARS);
  for (const profile of HOST_PROFILES) for (const name of placeVariables(profile)) names.add(name);
  return [...names].sort();
}

/** The flags the runner starts the first step with. */
export function planFlags(form: RunForm): string[] {
  return [`--allow-env=${planVariables().join(",")}`, ...fetchlessFlags(form)];
}

export interface Step {
  next: "plan" | "run";
  flags: string[];
}

/** The next step's grant for `args`, from what this process may already see. */
export async function nextStep(
  args: readonly string[],
  form: RunForm,
  context: PlaceContext = hostContext(),
  readable: (path: string) => boolean = canRead,
): Promise<Step> {
  const [command, ...rest] = args;
  const socket = locateSocket(serveOption(rest, "--socket")).path;
  const profile = findHost(serveOption(rest, "--host") ?? "");
  if (!needsHostGrant(args) || profile?.entry == null) {
    return { next: "run", flags: confinedFlags(socket, form) };
  }
  const reads = readPaths(profile, context).filter((path) => !/[,\n]/.test(path));
  const env = [...new Set([...SOCKET_ENV_VARS, ...placeVariables(profile)])].sort();
  const base = [...fetchlessFlags(form), ...list("--allow-env", env)];
  if (!reads.every(readable)) {
    return { next: "plan", flags: [...base, ...list("--allow-read", reads)] };
  }
  if (command === "doctor") {
    const reading = await readEntry(
      profile,
      context,
      () => Promise.resolve({ kind: "denied", program: "" }),
    );
    const commands = [reading.entry, ...reading.unused].flatMap((entry) =>
      entry ? [entry.launch.command] : []
    );
    const programs = profile.entry.show === null ? [] : [profile.entry.show.command[0]];
    return {
      next: "run",
      flags: [
        ...confinedFlags(socket, form),
        ...list("--allow-env", env),
        ...list("--allow-read", reads),
        ...list("--allow-run", [...new Set([...programs, ...commands])]),
      ],
    };
  }
  const target = await setupFile(profile, context);
  const flags = [...base, ...list("--allow-read", reads)];
  if (profile.entry.setup === "command") {
    const program = profile.setupCommand?.[0];
    if (typeof program === "string") flags.push(...list("--allow-run", [program]));
  } else if (target !== null) {
    const real = target;
    flags.push(...list("--allow-read", writtenPaths(real)));
    flags.push(...list("--allow-write", writtenPaths(real)));
  }
  return { next: "run", flags };
}

/**
 * The file setup will edit, as `setupTarget` chooses it, followed through a link (which needs
 * only the link's own read grant): the first setup place that exists, else the first.
 */
async function setupFile(profile: HostProfile, context: PlaceContext): Promise<string | null> {
  let first: string | null = null;
  for (const place of entryPlaces(profile, context).filter((place) => place.setup)) {
    try {
      const info = await Deno.lstat(place.file);
      if (!info.isSymlink) return place.file;
      return await Deno.realPath(place.file).catch(() => place.file);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      first ??= place.file;
    }
  }
  return first;
}

/** The files the host's places name, and Gemini's trusted folders. */
function readPaths(profile: HostProfile, context: PlaceContext): string[] {
  const paths = entryPlaces(profile, context).map((place) => place.file);
  const trusted = profile.entry?.trustedFolders;
  if (trusted !== undefined) {
    const file = expandPath(trusted, context);
    if (file !== null) paths.push(file);
  }
  return [...new Set(paths)];
}

function canRead(path: string): boolean {
  return Deno.permissions.querySync({ name: "read", path }).state === "granted";
}

/**
 * One permission flag, or none when nothing is left to grant: an empty list would grant
 * everything. A value Deno cannot name exactly (a comma separates its lists; a newline would
 * split the runner's lines) is left out, so what it names stays out of reach.
 */
function list(flag: string, values: readonly string[]): string[] {
  const named = values.filter((value) => !/[,\n]/.test(value) && value !== "");
  return named.length === 0 ? [] : [`${flag}=${named.join(",")}`];
}

/** `grant ARGS…`: prints the next step, `plan` or `run` and then one flag a line. */
export async function runGrant(args: string[], io: CommandIO): Promise<number> {
  const form: RunForm = Deno.mainModule.endsWith(".js") ? "bundle" : "source";
  const step = await nextStep(args, form);
  io.stdout([step.next, ...step.flags].join("\n") + "\n");
  return 0;
}
