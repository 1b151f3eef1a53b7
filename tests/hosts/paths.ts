/**
 * What a server costs the model on the paths hosts take when they do NOT send the whole tool
 * list: Claude Code's deferred tools (names and instructions up front on every request, then
 * definitions loaded through its ToolSearch), Codex's tool_search (the up-front namespace line,
 * then a search's output) and Codex's code mode (the `ALL_TOOLS` entries its exec runtime builds
 * from descriptions, instructions and input and output schemas). Each is measured for our
 * bridge and for the reference bridge's catalogue through the same host, configuration and
 * scripted fake model (the whole-list paths are in context.ts).
 */
import {
  claude,
  claudeEnv,
  codex,
  codexEnv,
  codexOverrides,
  HOST_RUN_TIMEOUT_MS,
} from "./hosts.ts";
import { configFor, instructionsIn, type Server } from "./context.ts";
import { anthropic, openaiResponses } from "./dialects.ts";
import { isRecord, ourToolName, records, responsesStream } from "./fake_model.ts";
import { type HostPackage, installedBin } from "./install.ts";
import { type Rig, runBounded, type RunResult, startRig } from "./rig.ts";
import { bodyText, type ScriptedRequest, startScriptedModel } from "./scripted_model.ts";
import { sharedRun } from "./shared_run.ts";

/** The newest Claude Code on npm when this was measured: it defers MCP tools by default. */
export const CLAUDE_LATEST: HostPackage = {
  host: "claude",
  name: "@anthropic-ai/claude-code",
  version: "2.1.332",
  bin: "claude",
};

const utf8 = new TextEncoder();
export const bytes = (value: unknown): number =>
  utf8.encode(typeof value === "string" ? value : JSON.stringify(value)).length;

/** Bytes of definitions as sent, one JSON object each. */
export function definitionsBytes(definitions: ReadonlyMap<string, unknown>): number {
  let total = 0;
  for (const definition of definitions.values()) total += bytes(definition);
  return total;
}

async function withRig<T>(server: Server, host: string, body: (rig: Rig) => Promise<T>) {
  const rig = await startRig();
  try {
    const config = await configFor(host, rig.socket, server);
    const adapter = host === "codex" ? codex : claude;
    await adapter.configure(rig, config);
    return await body(rig);
  } finally {
    await rig.close();
  }
}

function failure(what: string, run: RunResult): Error {
  return new Error(
    `${what} (exit ${run.code}${run.timedOut ? ", timed out" : ""}):\n` +
      `${run.stdout.slice(-1500)}\n${run.stderr.slice(-1500)}`,
  );
}

// ── Claude Code, deferred tools ────────────────────────────────────────────────────────────

export interface ClaudeDeferred {
  server: Server;
  version: string;
  /** Our tool names in the host's deferred list, as the model reads them. */
  names: string[];
  /** The list's lines for this server: each name and its newline. */
  nameBytes: number;
  /** The server instructions as shown (under `## portreeve`), or null. */
  instructions: string | null;
  /** The instructions' block: its `## portreeve` heading line and the text. */
  instructionsBytes: number;
  /** Our definitions once ToolSearch loaded every one (the host's `defer_loading` flag left out). */
  loaded: Map<string, unknown>;
  /** ToolSearch's answer to loading them all (one reference per tool; the same for any server). */
  loadAnswerBytes: number;
  run: RunResult;
}

/** Sent up front on every request: the deferred names and the instructions. */
export const upFrontBytes = (shown: ClaudeDeferred) => shown.nameBytes + shown.instructionsBytes;
/** Every tool loaded: the definitions and the instructions. */
export const loadedBytes = (shown: ClaudeDeferred) =>
  definitionsBytes(shown.loaded) + shown.instructionsBytes;

const NAME = /mcp__portreeve__(portreeve_[a-z_]+)/g;
/**
 * At most nine turns: the fake's tool_use ids are `toolu_N`, and Claude Code mixes up results
 * when one id is a prefix of another (`toolu_1`, `toolu_10`).
 */
const MAX_TURNS = 9;

const claudeRuns = new Map<string, Promise<ClaudeDeferred>>();

/**
 * One run of the newest Claude Code with its default tool search: the scripted model reads the
 * deferred list, then asks ToolSearch for every name of ours (`select:`), and the next request
 * carries all our definitions.
 */
export function claudeDeferred(server: Server): Promise<ClaudeDeferred> {
  return sharedRun(claudeRuns, server, () => measureClaudeDeferred(server));
}

async function measureClaudeDeferred(server: Server): Promise<ClaudeDeferred> {
  const bin = await installedBin(CLAUDE_LATEST);
  return await withRig(server, "claude", async (rig) => {
    let upFront: ScriptedRequest | null = null;
    const model = startScriptedModel((request) => {
      if (!request.path.endsWith("/v1/messages") || !isRecord(request.body)) return null;
      if (!records(request.body.tools).some((tool) => tool.name === "ToolSearch")) return null;
      const text = bodyText(request);
      const turns = records(request.body.messages).filter((m) => m.role === "assistant").length;
      if (loadedTools(request.body).size > 0 || turns >= MAX_TURNS) return null;
      const names = [...new Set([...text.matchAll(NAME)].map((m) => m[0]))];
      upFront ??= names.length > 0 ? request : null;
      // Until the server has connected there is nothing to load: a keyword search asks again.
      const query = names.length > 0 ? `select:${names.join(",")}` : "portreeve";
      return anthropic.toolCall("ToolSearch", { query, max_results: 64 }, turns, request);
    }, (request) => anthropic.text("done", request));
    try {
      const run = await runBounded(bin, [
        "-p",
        "Load every portreeve tool.",
        "--allowedTools",
        "mcp__portreeve__*",
        "--output-format",
        "json",
        "--max-turns",
        String(MAX_TURNS + 2),
      ], {
        env: claudeEnv(rig, model.url),
        cwd: rig.workdir,
        timeoutMs: HOST_RUN_TIMEOUT_MS,
      });
      const last = model.requests.findLast((r) => isRecord(r.body) && loadedTools(r.body).size > 0);
      const first = upFront as ScriptedRequest | null;
      if (first === null || last === undefined) {
        throw failure(`Claude Code ${CLAUDE_LATEST.version} never loaded the ${server} tools`, run);
      }
      const names = [...new Set([...bodyText(first).matchAll(NAME)].map((m) => m[1]))];
      const instructions = instructionsIn("claude", first.body);
      return {
        server,
        version: CLAUDE_LATEST.version,
        names,
        nameBytes: names.reduce((sum, name) => sum + bytes(`mcp__portreeve__${name}\n`), 0),
        instructions,
        instructionsBytes: instructions === null ? 0 : bytes(`## portreeve\n${instructions}`),
        loaded: loadedTools(last.body as Record<string, unknown>),
        loadAnswerBytes: bytes(searchAnswer(last.body)),
        run,
      };
    } finally {
      await model.close();
    }
  });
}

/** Our tools in a request's tool list as the model reads them (name, description, schema). */
function loadedTools(body: Record<string, unknown>): Map<string, unknown> {
  const loaded = new Map<string, unknown>();
  for (const tool of records(body.tools)) {
    const ours = typeof tool.name === "string" ? ourToolName(tool.name) : null;
    if (ours === null) continue;
    const { defer_loading: _flag, ...definition } = tool;
    loaded.set(ours, definition);
  }
  return loaded;
}

/** The content of the last tool_result in a request. */
function searchAnswer(body: unknown): unknown {
  const blocks = records(isRecord(body) ? body.messages : undefined)
    .flatMap((message) => records(message.content))
    .filter((block) => block.type === "tool_result");
  return blocks.at(-1)?.content ?? null;
}

// ── Codex ──────────────────────────────────────────────────────────────────────────────────

/** A model Codex defers MCP tools behind tool_search for (it reads the name, not the API). */
export const CODEX_SEARCH_MODEL = "gpt-5.5";
/** A model Codex runs in code mode (`tool_mode: code_mode_only` in its bundled catalogue). */
export const CODEX_CODE_MODEL = "gpt-5.6-sol";

export async function runCodex(rig: Rig, url: string, model: string, prompt: string) {
  const bin = await installedBin(codex.pkg);
  return await runBounded(bin, [
    "exec",
    "--skip-git-repo-check",
    "--dangerously-bypass-approvals-and-sandbox",
    ...codexOverrides(url, model),
    prompt,
  ], { env: codexEnv(rig), cwd: rig.workdir, timeoutMs: HOST_RUN_TIMEOUT_MS });
}

/** The server's line under "Deferred tool namespaces" (built from its instructions). */
function namespaceLine(request: ScriptedRequest | undefined): string | null {
  if (request === undefined) return null;
  const line = bodyText(request).match(/- mcp__portreeve: ((?:[^"\\]|\\.)*?)\\n/);
  return line === null ? null : `- mcp__portreeve: ${JSON.parse(`"${line[1]}"`)}`;
}

/**
 * What an agent types into tool_search when it has a job to do, eight tools each (Codex's
 * default limit). Queries name no tool, so each server is found by its own words.
 */
export const TYPICAL_SEARCHES = [
  "reserve a port for my dev server",
  "which process is listening on a port",
  "free a port that another process holds",
  "delete an old port claim",
  "start a stack and confirm its endpoints",
  "history of port changes",
] as const;
const SEARCH_LIMIT = 8;
/** Searches until Codex has listed the server's tools (it may ask before they are ready). */
const MAX_WARMUPS = 20;

export interface CodexSearches {
  server: Server;
  namespaceLine: string | null;
  /** Every tool of the server as a search output shows it (one search that finds all). */
  catalogue: Map<string, Record<string, unknown>>;
  /** The namespace entry of that search, for its shape and description. */
  namespace: Record<string, unknown>;
  /** Per typical search: our namespace entry of its output (description and tools found). */
  outputs: { query: string; entry: Record<string, unknown>; tools: string[] }[];
  run: RunResult;
}

/** A search every tool name matches, with a limit above the catalogue: all 51 come back. */
const FIND_ALL = { query: "portreeve", limit: 64 };

/**
 * A search output's entry for this server holding exactly `names`, in that order, as the host
 * renders them: what the same search costs whichever server answers it.
 */
export function searchEntry(shown: CodexSearches, names: readonly string[]): unknown {
  return {
    ...shown.namespace,
    tools: names.map((name) => {
      const tool = shown.catalogue.get(name);
      if (tool === undefined) throw new Error(`${shown.server} has no ${name} to find`);
      return tool;
    }),
  };
}

const searchRuns = new Map<string, Promise<CodexSearches>>();

/**
 * One Codex run on a tool_search model: the scripted model first finds every tool (repeating
 * while the server is still starting), then makes the typical searches.
 */
export function codexSearches(server: Server): Promise<CodexSearches> {
  return sharedRun(searchRuns, server, () => measureCodexSearches(server));
}

function searchOutputs(body: unknown): Record<string, unknown>[] {
  return records(isRecord(body) ? body.input : undefined)
    .filter((item) => item.type === "tool_search_output");
}

function ourNamespace(output: Record<string, unknown>): Record<string, unknown> | null {
  return records(output.tools).find((tool) => tool.name === "mcp__portreeve") ?? null;
}

async function measureCodexSearches(server: Server): Promise<CodexSearches> {
  return await withRig(server, "codex", async (rig) => {
    const model = startScriptedModel((request) => {
      if (!request.path.endsWith("/responses")) return null;
      const outputs = searchOutputs(request.body);
      const ready = outputs.findIndex((output) => ourNamespace(output) !== null);
      const done = ready < 0 ? 0 : outputs.length - ready - 1;
      if (ready < 0 && outputs.length >= MAX_WARMUPS) return null;
      if (done >= TYPICAL_SEARCHES.length) return null;
      const search = ready < 0 ? FIND_ALL : { query: TYPICAL_SEARCHES[done], limit: SEARCH_LIMIT };
      return responsesStream({
        type: "tool_search_call",
        id: `ts_${outputs.length}`,
        call_id: `call_ts_${outputs.length}`,
        execution: "client",
        status: "completed",
        arguments: search,
      });
    }, (request) => openaiResponses.text("done", request));
    try {
      const run = await runCodex(rig, model.url, CODEX_SEARCH_MODEL, "Find the portreeve tools.");
      const last = model.requests.findLast((r) => r.path.endsWith("/responses"));
      const outputs = searchOutputs(last?.body);
      const ready = outputs.findIndex((output) => ourNamespace(output) !== null);
      const namespace = ready < 0 ? null : ourNamespace(outputs[ready]);
      if (namespace === null) throw failure(`Codex never found the ${server} tools`, run);
      const typical = outputs.slice(ready + 1);
      if (typical.length !== TYPICAL_SEARCHES.length) {
        throw failure(`Codex answered ${typical.length} of the typical searches`, run);
      }
      const catalogue = new Map(records(namespace.tools).map((tool) => [String(tool.name), tool]));
      return {
        server,
        namespaceLine: namespaceLine(last),
        catalogue,
        namespace,
        outputs: typical.map((output, index) => {
          const entry = ourNamespace(output) ?? { ...namespace, tools: [] };
          return {
            query: TYPICAL_SEARCHES[index],
            entry,
            tools: records(entry.tools).map((tool) => String(tool.name)),
          };
        }),
        run,
      };
    } finally {
      await model.close();
    }
  });
}

export interface CodeModeTools {
  server: Server;
  namespaceLine: string | null;
  /** Our `ALL_TOOLS` entries ({name, description}) as the exec runtime holds them. */
  entries: { name: string; description: string }[];
  run: RunResult;
}

/** A chunk of ALL_TOOLS stays well under what Codex shows of an exec output (~40 KB). */
const CHUNK_CHARS = 16_000;
const MAX_EXECS = 80;
const TRUNCATED = /tokens truncated|chars truncated/;

/**
 * The exec program the scripted model runs: prints our ALL_TOOLS entries from `at` on, as many
 * as fit one chunk, with the total and where the next chunk starts.
 */
function allToolsChunk(at: number): string {
  return [
    'const ours = ALL_TOOLS.filter((t) => t.name.startsWith("mcp__portreeve__"));',
    `let next = ${at};`,
    "let size = 0;",
    "const entries = [];",
    "while (next < ours.length) {",
    "  const entry = { name: ours[next].name, description: ours[next].description };",
    "  const length = JSON.stringify(entry).length;",
    `  if (entries.length > 0 && size + length > ${CHUNK_CHARS}) break;`,
    "  entries.push(entry);",
    "  size += length;",
    "  next++;",
    "}",
    `text(JSON.stringify({ count: ours.length, at: ${at}, next, entries }));`,
  ].join("\n");
}

interface Chunk {
  count: number;
  at: number;
  next: number;
  entries: { name: string; description: string }[];
}

function execChunks(body: unknown): Chunk[] {
  const chunks: Chunk[] = [];
  for (const item of records(isRecord(body) ? body.input : undefined)) {
    if (item.type !== "custom_tool_call_output") continue;
    const texts = records(item.output).map((part) => String(part.text ?? ""));
    const printed = texts.find((text) => text.startsWith('{"count"'));
    if (printed === undefined) continue;
    if (TRUNCATED.test(printed)) {
      throw new Error(`Codex cut an ALL_TOOLS chunk:\n${printed.slice(0, 300)}`);
    }
    chunks.push(JSON.parse(printed) as Chunk);
  }
  return chunks;
}

const codeRuns = new Map<string, Promise<CodeModeTools>>();

export function codexCodeMode(server: Server): Promise<CodeModeTools> {
  return sharedRun(codeRuns, server, () => measureCodeMode(server));
}

async function measureCodeMode(server: Server): Promise<CodeModeTools> {
  return await withRig(server, "codex", async (rig) => {
    const model = startScriptedModel((request) => {
      if (!request.path.endsWith("/responses")) return null;
      const chunks = execChunks(request.body);
      if (chunks.length >= MAX_EXECS) return null;
      const last = chunks.at(-1);
      // Nothing of ours yet (the server is still starting): look again from the start.
      const at = last === undefined || last.count === 0 ? 0 : last.next;
      if (last !== undefined && last.count > 0 && at >= last.count) return null;
      return responsesStream({
        type: "custom_tool_call",
        id: `ctc_${chunks.length}`,
        call_id: `call_exec_${chunks.length}`,
        name: "exec",
        input: allToolsChunk(at),
        status: "completed",
      });
    }, (request) => openaiResponses.text("done", request));
    try {
      const run = await runCodex(rig, model.url, CODEX_CODE_MODEL, "List the portreeve tools.");
      const last = model.requests.findLast((r) => r.path.endsWith("/responses"));
      const chunks = execChunks(last?.body).filter((chunk) => chunk.count > 0);
      const entries = new Map<string, { name: string; description: string }>();
      for (const chunk of chunks) for (const entry of chunk.entries) entries.set(entry.name, entry);
      const count = chunks.at(-1)?.count ?? 0;
      if (count === 0 || entries.size !== count) {
        throw failure(`Codex code mode showed ${entries.size} of ${count} ${server} tools`, run);
      }
      return { server, namespaceLine: namespaceLine(last), entries: [...entries.values()], run };
    } finally {
      await model.close();
    }
  });
}
