/**
 * The server instructions: what every host shows its model before any call. Some hosts cut
 * them to about 250 characters, so the rule that matters most comes first: never free a port
 * yourself; every consequential change waits for a person. The compact-result rules close
 * them, stated from their declaration with this bridge's own origin (an event it caused is
 * written without one). A leaf of the catalogue: the server states them at start-up.
 */
import { rulesParagraph } from "../results/compact/rules.ts";
import type { JsonValue } from "../shared/json.ts";

export function serverInstructions(origin: JsonValue): string {
  return "PortReeve's daemon is the only authority on local dev ports. Never kill a process or " +
    "edit files to free a port: changes go *_preview, then the user's explicit approval, then " +
    "*_execute. On an error, do what its 'Next step:' line says. Ids are UUIDs, paths absolute, inputs strict, " +
    "limit 1-200 (default 50); reuse afterCursor only with the same filters. " +
    rulesParagraph(origin);
}
