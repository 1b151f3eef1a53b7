/**
 * What the documentation says about the catalogue, derived from the definitions: the tool
 * reference (docs/tools.md) and the toolsets with their tool counts (README and docs/tools.md).
 * `deno task gen` writes them; tests fail when they are stale, so no count is typed by hand.
 */
import { ALL_TOOLS } from "./index.ts";
import { inToolset, type ToolKind, toolsetOf, TOOLSETS } from "../shared/options.ts";

/** The reference table: one row per tool, in catalogue order. */
export function toolReference(): string[] {
  const rows = ALL_TOOLS.map((tool) => {
    const description = tool.description.replace(/\|/g, "\\|");
    return `| \`${tool.name}\` | ${tool.kind} | ${toolsetOf(tool.kind)} | ${description} |`;
  });
  return ["| Tool | Kind | Toolset | What it does |", "| --- | --- | --- | --- |", ...rows];
}

/** What each kind of tool is, in the words of the toolset table. */
const KIND_WORDS: Record<ToolKind, string> = {
  read: "reads",
  mutation: "lifecycle changes (leases, activations, launcher operations)",
  preview: "previews",
  execute: "executes (each needs a person's approval)",
};

/** One row per toolset: how many tools it registers and what it adds to the one before. */
export function toolsetTable(): string[] {
  const rows = TOOLSETS.map((toolset, index) => {
    const registered = ALL_TOOLS.filter((tool) => inToolset(tool.kind, toolset));
    const added = registered.filter((tool) => toolsetOf(tool.kind) === toolset);
    const kinds = [...new Set(added.map((tool) => tool.kind))].map((kind) => KIND_WORDS[kind]);
    const adds = index === 0 ? kinds.join(", ") : `${TOOLSETS[index - 1]} + ${kinds.join(", ")}`;
    return `| \`${toolset}\` | ${registered.length} | ${adds} |`;
  });
  return ["| `--toolset` | Tools | Registers |", "| --- | --- | --- |", ...rows];
}

/**
 * What each tool's default result leaves out beyond empty values and what it states once (its
 * definition's `view`), and where the result says to find it: one row per tool that has one.
 */
export function viewTable(): string[] {
  const rows = ALL_TOOLS.flatMap((tool) => {
    const view = tool.view;
    if (view === undefined) return [];
    const cells: [string, string][] = [
      ...(view.rare ?? []).map((entry): [string, string] =>
        typeof entry === "string"
          ? [`\`${entry}\``, '`detail: "full"`']
          : [`\`${entry.path}\` ${entry.which}`, '`detail: "full"`']
      ),
      ...(view.same ?? []).map(({ path, as }): [string, string] => [
        `\`${path}\``,
        `= \`${as}\``,
      ]),
      ...(view.merged ?? []).map(({ path, base, changes }): [string, string] => [
        `\`${path}\``,
        `\`${base}\` with \`${changes}\` applied`,
      ]),
      ...(view.shownBy ?? []).map(({ path, tool }): [string, string] => [
        `\`${path}\``,
        `\`${tool}\` shows it`,
      ]),
    ];
    return cells.map(([field, where]) => `| \`${tool.name}\` | ${field} | ${where} |`);
  });
  return [
    "| Tool | Left out by default | The result's `notShown` says |",
    "| --- | --- | --- |",
    ...rows,
  ];
}
