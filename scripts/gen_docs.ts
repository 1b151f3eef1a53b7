/**
 * The blocks `deno task gen` writes into README.md, docs/tools.md and docs/confinement.md, from
 * the catalogue, the program's own help (so the synopsis, hosts and exit codes the README shows
 * are the ones `portreeve-mcp --help` prints) and the permission set.
 */
import { toolReference, toolsetTable, viewTable } from "../src/catalogue/reference.ts";
import { programHelp } from "../src/cli/main.ts";
import { HOST_IDS } from "../src/profiles/hosts.ts";
import { confinedFlags, type RunForm } from "../src/shared/permissions.ts";
import { withSection } from "./doc_blocks.ts";

/** `--help` from its usage lines on (its first line names the version, which changes). */
export function commandsBlock(): string[] {
  const help = programHelp(HOST_IDS).split("\n");
  return ["```text", ...help.slice(help.findIndex((line) => line === "Usage:")), "```"];
}

export function withReadmeBlocks(readme: string): string {
  return withSection(withSection(readme, "commands", commandsBlock()), "toolsets", toolsetTable());
}

export function withToolsDoc(doc: string): string {
  return withSection(
    withSection(doc, "toolsets", toolsetTable()),
    "tool-reference",
    toolReference(),
  );
}

/** docs/results.md: what each tool's default result leaves out, from the definitions. */
export function withResultsDoc(doc: string): string {
  return withSection(doc, "default-views", viewTable());
}

/** The permission flags of each run form, with the socket shown as SOCKET. */
export function permissionFlagsBlock(): string[] {
  const forms: [RunForm, string][] = [
    ["source", "source run (a checkout)"],
    ["bundle", "installed bundle (launcher, release archive)"],
    ["compile", "deno compile"],
  ];
  const flags = (form: RunForm) =>
    confinedFlags("/SOCKET", form).map((flag) => flag.replaceAll("/SOCKET", "SOCKET"));
  const common = flags("source").filter((flag) =>
    forms.every(([form]) => flags(form).includes(flag))
  );
  const width = Math.max(...forms.map(([, label]) => label.length)) + 2;
  return [
    "```text",
    "every form:",
    ...common.map((flag) => `  ${flag}`),
    ...forms.map(([form, label]) =>
      `${`${label}:`.padEnd(width)}${flags(form).filter((f) => !common.includes(f)).join(" ")}`
    ),
    "```",
  ];
}

export function withConfinementDoc(doc: string): string {
  return withSection(doc, "permission-flags", permissionFlagsBlock());
}
