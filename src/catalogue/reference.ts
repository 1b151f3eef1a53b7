/** The README's tool reference, derived from the definitions (kept in sync by a test). */
import { ALL_TOOLS } from "./index.ts";
import { toolsetOf } from "../shared/options.ts";

export const REFERENCE_START = "<!-- tool-reference:start -->";
export const REFERENCE_END = "<!-- tool-reference:end -->";

export function toolReference(): string {
  const rows = ALL_TOOLS.map((tool) => {
    const toolset = toolsetOf(tool.kind);
    const description = tool.description.replace(/\|/g, "\\|");
    return `| \`${tool.name}\` | ${tool.kind} | ${toolset} | ${description} |`;
  });
  return [
    REFERENCE_START,
    "| Tool | Kind | Toolset | What it does |",
    "| --- | --- | --- | --- |",
    ...rows,
    REFERENCE_END,
  ].join("\n");
}

/** Replaces the marked section of `readme` with the current reference. */
export function withReference(readme: string): string {
  const start = readme.indexOf(REFERENCE_START);
  const end = readme.indexOf(REFERENCE_END);
  if (start === -1 || end === -1) throw new Error("README has no tool-reference markers");
  return readme.slice(0, start) + toolReference() + readme.slice(end + REFERENCE_END.length);
}
