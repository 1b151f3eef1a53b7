/**
 * Where a host keeps its `portreeve` entry, from its profile's `entry.files`, for one user,
 * system and folder. A path template may use `~` (HOME) at its start, `${NAME}` and
 * `${NAME:-default}` (an environment variable, the default when unset or empty, itself possibly
 * starting with `~`), and `${CWD}`, the folder the host is started in. Pure: the caller hands in
 * what it read of the environment.
 */
import type { EntryFile, HostProfile } from "./profile.ts";

/** What the templates are expanded with. */
export interface PlaceContext {
  /** An environment variable, or undefined when unset. */
  env(name: string): string | undefined;
  /** `Deno.build.os`. */
  os: string;
  /** The folder the host would start in, or null when unknown. */
  cwd: string | null;
}

/** One file that may hold the entry, expanded. */
export interface EntryPlace {
  file: string;
  /** Keys from the root to the servers map. */
  at: string[];
  scope: string;
  setup: boolean;
}

/** The variable the shell keeps the current folder in: `${CWD}` reads it. */
export const CWD_VARIABLE = "PWD";

const VARIABLE = /\$\{([A-Z_][A-Z0-9_]*)(?::-([^}]*))?\}/g;

/** The environment variables a template reads (HOME for `~`, PWD for `${CWD}`). */
function templateVariables(template: string): string[] {
  const names = new Set<string>();
  const tilde = (text: string) => text === "~" || text.startsWith("~/");
  if (tilde(template)) names.add("HOME");
  for (const [, name, fallback] of template.matchAll(VARIABLE)) {
    names.add(name === "CWD" ? CWD_VARIABLE : name);
    if (fallback !== undefined && tilde(fallback)) names.add("HOME");
  }
  return [...names];
}

/** The absolute path a template names, or null when a variable it needs is not known. */
export function expandPath(template: string, context: PlaceContext): string | null {
  let missing = false;
  const home = () => {
    const value = context.env("HOME");
    if (!value) missing = true;
    return value ?? "";
  };
  const withHome = (text: string) =>
    text === "~" || text.startsWith("~/") ? home() + text.slice(1) : text;
  const expanded = withHome(template).replace(VARIABLE, (_, name: string, fallback?: string) => {
    if (name === "CWD") {
      if (context.cwd === null) missing = true;
      return context.cwd ?? "";
    }
    const value = context.env(name);
    if (value) return value;
    if (fallback === undefined) {
      missing = true;
      return "";
    }
    return withHome(fallback);
  });
  return missing || !expanded.startsWith("/") ? null : expanded.replace(/\/{2,}/g, "/");
}

/** The places of `profile`'s entry on this system, highest precedence first. */
export function entryPlaces(profile: HostProfile, context: PlaceContext): EntryPlace[] {
  const places: EntryPlace[] = [];
  for (const file of filesHere(profile, context.os)) {
    const path = expandPath(file.path, context);
    if (path === null) continue;
    const at = file.at.map((key) => key === "${CWD}" ? context.cwd : key);
    if (at.some((key) => key === null)) continue;
    places.push({ file: path, at: at as string[], scope: file.scope, setup: file.setup === true });
  }
  return places;
}

function filesHere(profile: HostProfile, os: string): EntryFile[] {
  return (profile.entry?.files ?? []).filter((file) => file.os === undefined || file.os === os);
}

/** Every environment variable `profile`'s places read, on any system. */
export function placeVariables(profile: HostProfile): string[] {
  const names = new Set<string>();
  for (const file of profile.entry?.files ?? []) {
    for (const name of templateVariables(file.path)) names.add(name);
    if (file.at.includes("${CWD}")) names.add(CWD_VARIABLE);
  }
  if (profile.entry?.trustedFolders !== undefined) {
    for (const name of templateVariables(profile.entry.trustedFolders)) names.add(name);
    names.add(CWD_VARIABLE);
  }
  return [...names].sort();
}
