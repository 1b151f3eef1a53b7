/** The exact host command `config` would print, for doctor's checklist. */
import type { SocketLocation } from "../shared/socket_location.ts";
import { renderConfig } from "../profiles/mod.ts";
import { detectInstallation } from "../shared/installation.ts";
import { shellJoin, shellQuote } from "../shared/shell.ts";

export function hostCommand(
  host: string,
  socket: SocketLocation,
  label: string | undefined,
  toolset: string,
  approval?: string,
): string {
  try {
    const result = renderConfig(
      { host, portable: false, label, toolset, approval, socket },
      detectInstallation(),
    );
    const env = Object.entries(result.env).map(([key, value]) => `${key}=${shellQuote(value)}`);
    return [...env, shellJoin([result.command, ...result.args])].join(" ");
  } catch (error) {
    return `cannot render: ${error instanceof Error ? error.message : String(error)}`;
  }
}
