/**
 * What a host puts in its model's context for a server, before any call: the tool definitions
 * as sent, the server instructions where the host shows them, and Codex's tool_search answer.
 * Measured for our bridge and for the reference bridge's recorded catalogue (served by
 * `reference_server.ts`) through the same host, configuration and fake model, so the two
 * compare byte for byte.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Dialect, isRecord, records, responsesStream, startFakeModel } from "./fake_model.ts";
import { codexEnv, codexOverrides, type HostAdapter } from "./hosts.ts";
import { cacheRoot, installedBin } from "./install.ts";
import {
  type PrintedConfig,
  printedConfig,
  runBounded,
  type RunResult,
  startRig,
  withServerEntry,
} from "./rig.ts";
import { definitionBytes } from "./report.ts";
import { sharedRun } from "./shared_run.ts";

export { definitionBytes };

export type Server = "ours" | "reference";

export interface ContextShown {
  host: string;
  server: Server;
  /** Our tool name → its definition as the host sent it. */
  definitions: Map<string, unknown>;
  /** The server instructions as the host showed them, or null where it showed none. */
  instructions: string | null;
  run: RunResult;
}

const utf8 = new TextEncoder();
export const bytesOf = (value: unknown): number =>
  utf8.encode(typeof value === "string" ? value : JSON.stringify(value)).length;

/** Definitions plus the instructions: all a server costs the context before any call. */
export function contextBytes(shown: ContextShown): number {
  return definitionBytes(shown) + (shown.instructions === null ? 0 : bytesOf(shown.instructions));
}

const runs = new Map<string, Promise<ContextShown>>();

/** One run of the host with the full toolset, the model making no call (cached per pair). */
export function contextShown(adapter: HostAdapter, server: Server): Promise<ContextShown> {
  return sharedRun(runs, `${adapter.pkg.host}/${server}`, () => measure(adapter, server));
}

async function measure(adapter: HostAdapter, server: Server): Promise<ContextShown> {
  const bin = await installedBin(adapter.pkg);
  const rig = await startRig();
  try {
    await adapter.configure(rig, await configFor(adapter.pkg.host, rig.socket, server));
    const fake = startFakeModel(adapter.dialect, []);
    // Codex may ask for its first turn before the server has listed its tools; until it
    // offers them, the model calls one of Codex's own tools, which brings another turn.
    const front = adapter.pkg.host === "codex" ? untilOffered(fake.url, adapter.dialect) : null;
    try {
      const run = await adapter.run(bin, rig, front?.url ?? fake.url);
      const first = fake.firstTurn();
      const body = firstTurnBody(adapter.dialect, fake.calls);
      if (first === null || body === null) {
        throw new Error(
          `${adapter.pkg.host} never offered the ${server} tools to the model (exit ${run.code}):\n` +
            `${run.stdout.slice(-1500)}\n${run.stderr.slice(-1500)}`,
        );
      }
      return {
        host: adapter.pkg.host,
        server,
        definitions: first.definitions,
        instructions: instructionsIn(adapter.pkg.host, body),
        run,
      };
    } finally {
      await front?.close();
      await fake.close();
    }
  } finally {
    await rig.close();
  }
}

const MAX_STALLS = 20;

/** A Responses API front that stalls (a harmless tool call) until our tools are offered. */
function untilOffered(target: string, dialect: Dialect) {
  let stalls = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const text = await req.text();
    const body: unknown = text === "" ? null : JSON.parse(text);
    if (
      url.pathname.endsWith("/responses") && !dialect.isTurn(url.pathname, body) &&
      stalls < MAX_STALLS
    ) {
      stalls++;
      return responsesStream({
        type: "function_call",
        id: `fc_stall_${stalls}`,
        call_id: `call_stall_${stalls}`,
        name: "list_mcp_resources",
        arguments: "{}",
        status: "completed",
      });
    }
    return fetch(`${target}${url.pathname}${url.search}`, {
      method: req.method,
      headers: req.headers,
      body: text === "" ? undefined : text,
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    close: () => server.shutdown(),
  };
}

function firstTurnBody(dialect: Dialect, calls: { path: string; body: string }[]): unknown {
  for (const call of calls) {
    const body: unknown = JSON.parse(call.body === "" ? "null" : call.body);
    if (dialect.isTurn(new URL(call.path, "http://x").pathname, body)) return body;
  }
  return null;
}

/** Where each host puts a server's instructions in the request to its model. */
export function instructionsIn(host: string, body: unknown): string | null {
  const text = JSON.stringify(body);
  const unescape = (s: string) => JSON.parse(`"${s}"`) as string;
  if (host === "claude") {
    const found = text.match(/## portreeve\\n((?:[^"\\]|\\.)*?)(?:\\n\\n|")/);
    return found ? unescape(found[1]) : null;
  }
  if (host === "gemini") {
    const found = text.match(
      /\[start of server instructions\]---\\n((?:[^"\\]|\\.)*?)\\n---\[end of server instructions/,
    );
    return found ? unescape(found[1]) : null;
  }
  // Codex: the description of the server's namespace in the tool list.
  const tools = isRecord(body) ? records(body.tools) : [];
  const namespace = tools.find((t) => t.type === "namespace" && t.name === "mcp__portreeve");
  return typeof namespace?.description === "string" ? namespace.description : null;
}

/** The printed configuration, or the same entry starting the reference catalogue instead. */
export async function configFor(
  host: string,
  socket: string,
  server: Server,
  options: { replay?: boolean; extra?: string[] } = {},
): Promise<PrintedConfig> {
  const printed = await printedConfig(host, socket, options.extra);
  if (server === "ours") return printed;
  return withServerEntry(printed, await referenceEntry(options.replay ?? false));
}

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const EXTRAS = fixture("reference-tool-extras.jsonl");
export const REFERENCE_SESSION = fixture("reference-session.jsonl");

/** The command that starts the reference catalogue (replaying its recorded session if asked). */
export async function referenceEntry(
  replay: boolean,
): Promise<{ command: string; args: string[] }> {
  const files = replay ? [EXTRAS, REFERENCE_SESSION] : [EXTRAS];
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      `--allow-read=${files.join(",")}`,
      await referenceBundle(),
      "--extras",
      EXTRAS,
      ...(replay ? ["--replay", REFERENCE_SESSION] : []),
    ],
  };
}

const bundles = new Map<string, Promise<string>>();

const referenceBundle = () => serverBundle("reference_server");

/** The command that starts the probe server (probe_server.ts). */
export async function probeEntry(): Promise<{ command: string; args: string[] }> {
  return {
    command: Deno.execPath(),
    args: ["run", "--quiet", "--no-prompt", await serverBundle("probe_server")],
  };
}

/**
 * A stand-in server of this folder (`NAME.ts`) as one self-contained file, so a throwaway home
 * needs no cache. Bundled afresh by each run, then kept under the digest of its bytes (runs of
 * other checkouts share the cache, so no run replaces a file another is starting).
 */
function serverBundle(name: string): Promise<string> {
  return sharedRun(bundles, name, async () => {
    const source = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
    const root = join(cacheRoot(), "stand-in-servers");
    const staging = join(root, `${name}.partial-${Deno.pid}`);
    await Deno.mkdir(staging, { recursive: true });
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--quiet", "--platform=deno", "--outdir", staging, source],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) {
      await Deno.remove(staging, { recursive: true });
      throw new Error(`bundling ${name}.ts failed:\n${new TextDecoder().decode(out.stderr)}`);
    }
    const file = `${name}.js`;
    const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(join(staging, file)));
    const version = [...new Uint8Array(digest).slice(0, 8)]
      .map((b) => b.toString(16).padStart(2, "0")).join("");
    const dir = join(root, `${name}-${version}`);
    const bundle = join(dir, file);
    await Deno.rename(staging, dir).catch(() => {});
    // Another run put the same bytes in place first: keep theirs.
    await Deno.remove(staging, { recursive: true }).catch(() => {});
    await Deno.stat(bundle);
    return bundle;
  });
}

/** What Codex showed its model around one tool_search over a server's deferred tools. */
export interface ToolSearchShown {
  server: Server;
  /** The server's line under "Deferred tool namespaces" (built from its instructions). */
  namespaceLine: string | null;
  /** The `tools` of Codex's `tool_search_output`: the namespace and the tools found. */
  found: unknown[];
  /** How many of the server's tools the search returned. */
  toolCount: number;
  run: RunResult;
}

/** A model Codex defers MCP tools behind tool_search for (it reads the name, not the API). */
const SEARCHING_MODEL = "gpt-5.5";
/** Every tool name holds the word; the limit is above the catalogue, so all 51 come back. */
const SEARCH = { query: "portreeve", limit: 64 };

const searches = new Map<string, Promise<ToolSearchShown>>();

export function codexToolSearch(adapter: HostAdapter, server: Server): Promise<ToolSearchShown> {
  return sharedRun(searches, server, () => search(adapter, server));
}

async function search(adapter: HostAdapter, server: Server): Promise<ToolSearchShown> {
  const bin = await installedBin(adapter.pkg);
  const rig = await startRig();
  const bodies: unknown[] = [];
  // Codex may ask for the first turn before the server has listed its tools: the fake model
  // searches again until the answer holds the server's namespace (a bounded number of times).
  const model = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const text = await req.text();
    if (!new URL(req.url).pathname.endsWith("/responses")) return new Response("{}");
    bodies.push(JSON.parse(text));
    const done = foundNamespace(bodies.at(-1)) || bodies.length > MAX_SEARCHES;
    return responsesStream(
      done ? message("done") : {
        type: "tool_search_call",
        id: `ts_${bodies.length}`,
        call_id: `call_ts_${bodies.length}`,
        execution: "client",
        status: "completed",
        arguments: SEARCH,
      },
    );
  });
  try {
    await adapter.configure(rig, await configFor("codex", rig.socket, server));
    const url = `http://127.0.0.1:${model.addr.port}`;
    const run = await runBounded(bin, [
      "exec",
      "--skip-git-repo-check",
      "--dangerously-bypass-approvals-and-sandbox",
      ...codexOverrides(url, SEARCHING_MODEL),
      "Find the portreeve tools.",
    ], { env: codexEnv(rig), cwd: rig.workdir, timeoutMs: 120_000 });
    const found = lastSearchOutput(bodies.at(-1));
    const namespace = found.find((t) => t.name === "mcp__portreeve");
    const lines = JSON.stringify(bodies.at(-1) ?? null).match(
      /- mcp__portreeve: ((?:[^"\\]|\\.)*?)\\n/,
    );
    return {
      server,
      namespaceLine: lines ? `- mcp__portreeve: ${JSON.parse(`"${lines[1]}"`)}` : null,
      found,
      toolCount: records(namespace?.tools).length,
      run,
    };
  } finally {
    await model.shutdown();
    await rig.close();
  }
}

const MAX_SEARCHES = 50;

/** The `tools` of the latest tool_search_output in a request. */
function lastSearchOutput(body: unknown): Record<string, unknown>[] {
  const outputs = records(isRecord(body) ? body.input : undefined)
    .filter((item) => item.type === "tool_search_output");
  return records(outputs.at(-1)?.tools);
}

const foundNamespace = (body: unknown) =>
  lastSearchOutput(body).some((t) => t.name === "mcp__portreeve");

const message = (text: string) => ({
  type: "message",
  id: "msg_fake",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text, annotations: [] }],
});
