/**
 * What a person can do when no daemon answers: start PortReeve, or try this bridge against
 * the SIMULATED daemon on a temporary socket (`deno task demo`). For people only (doctor, a
 * terminal): agents are never told to start anything, and the simulator never gets a real
 * PortReeve socket path.
 */
import { checkoutOf, PORTREEVE_PROJECT } from "../hints.ts";
import { detectInstallation } from "../installation.ts";
import { shellJoin, shellQuote } from "../shell.ts";

/** The demo task, pasteable from the checkout this bridge runs from (or any checkout). */
function demoLine(): string {
  const installation = detectInstallation();
  const checkout = installation.kind === "script" ? checkoutOf(installation.entryPath) : null;
  if (checkout === null) return "`deno task demo` in a portreeve-mcp checkout";
  return `\`cd ${shellQuote(checkout)} && ${shellJoin([installation.execPath, "task", "demo"])}\``;
}

export function startDaemonHint(): string {
  return `Start PortReeve (\`portreeve start\`; ${PORTREEVE_PROJECT}), or point the bridge at ` +
    "the socket it listens on with --socket or PORTREEVE_SOCKET. To try this bridge without " +
    `PortReeve, ${demoLine()} runs it against a SIMULATED daemon on a temporary socket.`;
}
