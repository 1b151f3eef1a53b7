/**
 * How a person takes the bridge's entry out of a host again, from the host's profile: a host
 * whose registration command is `PROGRAM mcp add[-json] …` removes it with
 * `PROGRAM mcp remove [its scope flag] portreeve`, unless its profile says otherwise
 * (`removeCommand`); any other host by deleting the entry from where its configuration lives.
 * `uninstall` prints this for every host.
 */
import { SERVER_NAME } from "../shared/options.ts";
import type { HostProfile } from "./profile.ts";

/** Flags that choose where a host keeps the entry; the removal must name the same place. */
const SCOPE_FLAGS = new Set(["--scope", "-s"]);

/** The host's removal command, as words, or null when it has none known. */
export function removalCommand(profile: HostProfile): string[] | null {
  if (profile.removeCommand !== undefined) return profile.removeCommand;
  const setup = profile.setupCommand;
  if (setup === null || setup.length < 3 || !setup.every((word) => typeof word === "string")) {
    return null;
  }
  const [program, group, verb, ...rest] = setup as string[];
  if (group !== "mcp" || (verb !== "add" && verb !== "add-json")) return null;
  const scope: string[] = [];
  for (let i = 0; i < rest.length - 1; i++) {
    if (SCOPE_FLAGS.has(rest[i])) scope.push(rest[i], rest[i + 1]);
  }
  return [program, "mcp", "remove", ...scope, SERVER_NAME];
}

/** One line for a person: how to take the entry out of this host. */
export function removalStep(profile: HostProfile): string {
  const command = removalCommand(profile);
  if (command !== null) return `${profile.label}: \`${command.join(" ")}\``;
  return `${profile.label}: delete the "${SERVER_NAME}" entry from ${profile.configurationTarget}`;
}
