/** The human rendering of a ConfigResult. */
import type { ConfigResult } from "./render.ts";

export function formatHuman(result: ConfigResult): string {
  const mode = result.mode === "exact"
    ? "exact command for this installation"
    : "portable command (portreeve-mcp on PATH)";
  const lines = [
    `PortReeve MCP for ${result.hostLabel}: ${mode}`,
    "",
    `Add to ${result.configurationTarget}:`,
    "",
    result.configuration,
  ];
  if (result.setupCommand !== null) {
    lines.push("", "Or register it from a terminal:", "", `  ${result.setupCommand}`);
  }
  if (result.installLink !== null) {
    lines.push("", "Or open this install link:", "", `  ${result.installLink}`);
  }
  if (result.notes.length > 0) {
    lines.push("", "Notes:", ...result.notes.map((note) => `- ${note}`));
  }
  return lines.join("\n") + "\n";
}
