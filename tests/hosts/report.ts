/**
 * The figures the suite reports (bytes of tool definitions each host sent, size of the largest
 * page result the model was shown) and the README's "Works with" table, built from what the
 * hosts actually did.
 */
import { sectionOf, withSection, writeFormatted } from "../../scripts/doc_blocks.ts";
import { type Session, STEP } from "./session.ts";
import { describeError, describeLongResult, describeSuccess, shownForm } from "./visible.ts";
import reference from "../fixtures/reference_errors.json" with { type: "json" };

export const HOST_NAMES: Record<string, string> = {
  claude: "Claude Code",
  codex: "OpenAI Codex",
  gemini: "Gemini CLI",
  opencode: "OpenCode",
  copilot: "GitHub Copilot CLI",
  qwen: "Qwen Code",
  cline: "Cline",
};

/** UTF-8 bytes of a server's tool definitions as the host sent them to the model. */
export function definitionBytes(s: Pick<Session, "definitions">): number {
  const encoder = new TextEncoder();
  let bytes = 0;
  for (const definition of s.definitions.values()) {
    bytes += encoder.encode(JSON.stringify(definition)).length;
  }
  return bytes;
}

export function printFigures(sessions: readonly Session[]): void {
  const lines = [
    "",
    "host | toolset | tools | definition bytes | model saw (chars): claims limit 200 / history limit 200 / claims limit 100",
  ];
  for (const s of sessions) {
    const pages = s.toolset === "full"
      ? [STEP.claims200, STEP.history200, STEP.claims100]
        .map((step) => String(s.results[step]?.length ?? "-")).join(" / ")
      : "-";
    lines.push(
      `${s.host} ${s.version} | ${s.toolset} | ${s.definitions.size} | ${
        definitionBytes(s)
      } | ${pages}`,
    );
  }
  const page = sessions.find((s) => s.truth.has(STEP.claims200))?.truth.get(STEP.claims200);
  if (page !== undefined) {
    lines.push(
      `the server's limit-200 claims page: ${
        JSON.stringify(page.structured).length
      } chars of JSON, ` +
        `text block ${page.text.length} chars`,
    );
  }
  for (const s of sessions) if (s.toolset === "full") lines.push(...errorFigures(s));
  console.log(lines.join("\n"));
}

/** The three errors the reference bridge's recorded session has too. */
export const MEASURED_ERRORS = [
  [STEP.notFound, "portreeve_not_found"],
  [STEP.invalidInput, "portreeve_invalid_input"],
  [STEP.daemonDown, "portreeve_unavailable"],
] as const;

const utf8 = (text: string) => new TextEncoder().encode(text).length;

/**
 * Bytes of an error as the model was shown it, with the socket path (which differs between
 * sessions and machines) counted as `<socket>`. The host's own wrapping (Qwen Code's "MCP
 * tool … reported tool error for function call …", Codex's "Wall time") is not the error's.
 */
export function errorBytes(form: string, socket: string): number {
  return utf8(form.replaceAll(socket, "<socket>"));
}

/**
 * The reference's recorded result, as a host shows it: its errors carry no isError, so every
 * host reads one copy of their JSON (structuredContent or the identical text).
 */
export function referenceBytes(code: (typeof MEASURED_ERRORS)[number][1]): number {
  const recorded = reference.errors[code].result;
  return errorBytes(recorded.content[0].text, reference.socketPath);
}

/** What each host showed of each measured error, for the figures. */
export function errorFigures(s: Session): string[] {
  return MEASURED_ERRORS.map(([step, code]) => {
    const form = shownForm(s.results[step] ?? "", s.truth.get(step)?.text ?? "\u0000");
    const ours = form === null ? NaN : errorBytes(form, s.socket);
    const theirs = referenceBytes(code);
    return `${s.host} ${code}: ${ours} B vs the reference's ${theirs} B (${
      (ours / theirs).toFixed(2)
    }×); the whole result shown ${utf8(s.results[step] ?? "")} B`;
  });
}

/** The setup command as the README shows it: the host's words, then an ellipsis. */
function setupWords(s: Session): string {
  const command = s.config.setupCommand ?? "";
  const at = command.indexOf(" portreeve ");
  return at < 0 ? command : `${command.slice(0, at)} portreeve …`;
}

function row(s: Session): string {
  const success = s.truth.get(STEP.ports);
  const failure = s.truth.get(STEP.notFound);
  const sawSuccess = s.results[STEP.ports];
  const sawError = s.results[STEP.notFound];
  const successView = success && sawSuccess !== undefined
    ? describeSuccess(sawSuccess, success)
    : "not observed";
  const errorView = failure && sawError !== undefined
    ? describeError(sawError, failure, "portreeve_not_found")
    : "not observed";
  const page = s.truth.get(STEP.claims200);
  const sawPage = s.results[STEP.claims200];
  const pageView = page && sawPage !== undefined
    ? describeLongResult(sawPage, JSON.stringify(page.structured).length)
    : "not observed";
  const check = s.check === null
    ? "none outside its terminal interface; the run lists the tools"
    : `\`${s.check.command}\`: ${s.check.connected ? "connected" : "NOT connected"}`;
  return `| ${HOST_NAMES[s.host] ?? s.host} | ${s.version} | ${successView} | ${errorView} | ` +
    `${pageView} | ` +
    `\`portreeve-mcp config --host ${s.host}\`, then \`${setupWords(s)}\` | ${check} |`;
}

export function worksWithTable(sessions: readonly Session[]): string {
  return [
    "| Host | Version tested | Success: the model sees | Error: the model sees | " +
    "A `limit: 200` page (≤ 30,000 chars of records) | Setup | Connection check |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...sessions.map(row),
  ].join("\n");
}

/** Fails when the README's table differs; HOSTS_UPDATE_DOCS=1 writes it instead. */
export async function checkWorksWithTable(sessions: readonly Session[]): Promise<void> {
  await checkDocBlock("README.md", "works-with", worksWithTable(sessions));
}

/**
 * Compares the block `name` of `file` (between `<!-- NAME:start -->` and `<!-- NAME:end -->`)
 * with what the hosts showed; HOSTS_UPDATE_DOCS=1 writes it there instead.
 */
export async function checkDocBlock(file: string, name: string, table: string): Promise<void> {
  const url = new URL(`../../${file}`, import.meta.url);
  const doc = await Deno.readTextFile(url);
  const current = sectionOf(doc, name);
  if (current === undefined) throw new Error(`${file} lacks the ${name} markers`);
  if (Deno.env.get("HOSTS_UPDATE_DOCS") === "1") {
    await writeFormatted(url, withSection(doc, name, table.split("\n")));
    return;
  }
  if (normalise(current) !== normalise(table)) {
    throw new Error(
      `${file}'s ${name} table differs from what the hosts showed; ` +
        "run `HOSTS_UPDATE_DOCS=1 deno task test:hosts` and review the diff.\n" +
        `measured:\n${table}`,
    );
  }
}

/** `deno fmt` pads table cells; compare cell text only. */
function normalise(table: string): string {
  return table.split("\n")
    .map((line) => line.split("|").map((cell) => cell.trim().replace(/^-+$/, "-")).join("|"))
    .join("\n");
}
