/**
 * The generated tables of docs/limits.md (`deno task gen` writes them; a test keeps them in
 * step): the input bounds and why, every tool's bounded inputs read back out of its
 * advertised schema, and the bounds on answers, pages, requests, frames and the socket path.
 */
import { INPUT_BOUNDS } from "../src/shared/input_bounds.ts";
import { ANSWER_BOUNDS } from "../src/shared/answer_bounds.ts";
import { PAGE_ROOM } from "../src/results/pagination.ts";
import { HOST_PROFILES, hostTreatments } from "../src/profiles/mod.ts";
import { ALL_TOOLS } from "../src/catalogue/index.ts";
import { describeTool } from "../src/results/describe.ts";
import { inputBounds } from "../src/results/input_limits.ts";
import { MAX_RESPONSE_BYTES, MAX_URL_CHARS } from "../src/daemon/http.ts";
import { DEFAULT_CONNECT_MS } from "../src/daemon/client.ts";
import { CALL_TIMING } from "../src/transport/server.ts";
import { FRAME_LIMITS, MAX_FRAME_BYTES } from "../src/transport/frames.ts";
import { socketPathLimit } from "../src/shared/socket_location.ts";
import { withSection } from "./doc_blocks.ts";

const n = (value: number) => value.toLocaleString("en-US");
const cell = (text: string) => text.replace(/\|/g, "\\|");

type BoundRow = [name: string, max: string, why: string];

/** A "Bound | At most | Why" table. */
function boundsTable(rows: BoundRow[]): string[] {
  return [
    "| Bound | At most | Why |",
    "| --- | --- | --- |",
    ...rows.map(([name, max, why]) => `| ${name} | ${max} | ${cell(why)} |`),
  ];
}

function inputBoundsTable(): string[] {
  return boundsTable(
    Object.entries(INPUT_BOUNDS).map(([name, b]): BoundRow => [
      `\`${name}\``,
      `${n(b.max)} ${b.unit}`,
      b.why,
    ]),
  );
}

function toolInputsTable(): string[] {
  const rows = ALL_TOOLS.map((tool) => {
    const schema = describeTool(tool).inputSchema as Record<string, unknown>;
    const found = inputBounds(schema, schema, tool.name, tool.anyJsonInputs);
    const byBound = new Map<string, string[]>();
    for (const { path, bound } of found) {
      const field = path.slice(tool.name.length + 1) || "(arguments)";
      const paths = byBound.get(bound) ?? [];
      if (!paths.includes(field)) paths.push(field);
      byBound.set(bound, paths);
    }
    const text = [...byBound].map(([bound, paths]) =>
      `${paths.map((p) => `\`${p}\``).join(", ")} ${bound.replace(/\d{4,}/g, (d) => n(Number(d)))}`
    ).join("; ");
    return `| \`${tool.name}\` | ${cell(text || "no string, list or map input")} |`;
  });
  return ["| Tool | Bounded inputs (characters, unless said) |", "| --- | --- |", ...rows];
}

function answerBoundsTable(): string[] {
  return boundsTable([
    ...Object.entries(ANSWER_BOUNDS).map(([name, b]): BoundRow => [
      `\`${name}\``,
      `${n(b.max)} characters`,
      b.why,
    ]),
    [
      "a result, by host",
      hostLimits(),
      `what the host shows its model whole (\`resultLimitBytes\` of its profile); a page's ` +
      `records take at most that less ${n(PAGE_ROOM)} bytes, and a larger record comes alone, ` +
      "cut to fit",
    ],
    [
      "daemon answer",
      `${n(MAX_RESPONSE_BYTES)} bytes`,
      "a longer body is not read: portreeve_invalid_response",
    ],
    [
      "a call's wait for the daemon",
      `${n(CALL_TIMING.daemonWaitMs / 60_000)} minutes`,
      "`serve --daemon-wait-ms`: a daemon that serves one request at a time is slow, not gone; " +
      "then portreeve_unavailable (timeout), a change's late answer given back or logged",
    ],
    [
      "connecting to the socket",
      `${n(DEFAULT_CONNECT_MS)} ms`,
      "connecting never waits on the daemon's work, so no file or a refusal answers at once",
    ],
    [
      "request URL",
      `${n(MAX_URL_CHARS)} characters`,
      "the longest URL Deno's fetch builds; longer is portreeve_invalid_input, unsent",
    ],
    [
      "MCP frame from the host",
      `${n(MAX_FRAME_BYTES)} bytes`,
      "a longer line is refused unread with a JSON-RPC error",
    ],
    [
      "its nesting",
      `${n(FRAME_LIMITS.maxDepth)} levels`,
      "deeper is refused unparsed: a tool error for a tool call, else a JSON-RPC error",
    ],
    [
      "its JSON values",
      `${n(FRAME_LIMITS.maxValues)}`,
      "more is refused unparsed the same way: each value costs up to 64 bytes once parsed",
    ],
    [
      "socket path",
      `${socketPathLimit("linux") - 1} bytes (Linux), ${socketPathLimit("darwin") - 1} (macOS)`,
      "sun_path holds the path and its final NUL; longer is a usage error (exit 2)",
    ],
  ]);
}

/** Each profile's result limit, and what any other host gets. */
function hostLimits(): string {
  const stated = HOST_PROFILES.filter((p) => p.resultLimitBytes !== null)
    .map((p) =>
      `${p.label} ${n(p.resultLimitBytes!)}` +
      (p.resultShownAs === "result-json" ? " (of the result as JSON, the envelope twice)" : "")
    );
  return `${stated.join("; ")}; any other ${n(hostTreatments().fallback.resultLimitBytes)} bytes`;
}

const SECTIONS: Record<string, () => string[]> = {
  "input-bounds": inputBoundsTable,
  "tool-inputs": toolInputsTable,
  "answer-bounds": answerBoundsTable,
};

/** `doc` with each generated section replaced by its current table. */
export function withLimitTables(doc: string): string {
  let out = doc;
  for (const [name, table] of Object.entries(SECTIONS)) out = withSection(out, name, table());
  return out;
}
