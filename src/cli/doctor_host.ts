/** The exact host command `config` would print (and `setup` would write), for doctor. */
import type { SocketLocation } from "../shared/socket_location.ts";
import { renderConfig } from "../profiles/mod.ts";
import { detectInstallation } from "../shared/installation.ts";
import { shellJoin, shellQuote } from "../shared/shell.ts";
import type { Launch } from "../profiles/entry_shape.ts";

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

/** The entry `setup --host` would write now, or null when it cannot be rendered here. */
export function expectedLaunch(
  host: string,
  socket: SocketLocation,
  label: string | undefined,
  toolset: string,
  approval?: string,
): Launch | null {
  try {
    const { command, args, env } = renderConfig(
      { host, portable: false, label, toolset, approval, socket },
      detectInstallation(),
    );
    return { command, args, env };
  } catch {
    return null;
  }
}
