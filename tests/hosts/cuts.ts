/**
 * Each host's cut: the largest tool result its model is shown whole. The probe server
 * (probe_server.ts) answers `portreeve_probe_result {bytes}` with a record of exactly that many
 * bytes; a scripted model asks for sizes by bisection, a few per host run (so no run's context
 * grows large), and reads from the next request whether the record arrived whole. Sizes are
 * bytes of what the host shows (structuredContent's JSON, or the identical text block), on
 * every path: Claude Code with the whole list and with its tool search off, Codex classic,
 * tool_search and code mode, Gemini CLI.
 */
import { type Rig, runBounded, type RunResult, startRig, withServerEntry } from "./rig.ts";
import { printedConfig } from "./rig.ts";
import { probeEntry } from "./context.ts";
import {
  claude,
  claudeEnv,
  codex,
  geminiCli,
  HOST_RUN_TIMEOUT_MS,
  type HostAdapter,
} from "./hosts.ts";
import { anthropic, gemini, openaiResponses } from "./dialects.ts";
import { type Dialect, isRecord, records, responsesStream } from "./fake_model.ts";
import { type HostPackage, installedBin } from "./install.ts";
import { CLAUDE_LATEST, CODEX_CODE_MODEL, CODEX_SEARCH_MODEL, runCodex } from "./paths.ts";
import { PROBE_TOOL, probeRecord, probeResult } from "./probe_server.ts";
import { shownForm as hostForm } from "../../src/results/shown_form.ts";
import { type ScriptedRequest, startScriptedModel } from "./scripted_model.ts";
import { sharedRun } from "./shared_run.ts";
import { describeLongResult } from "./visible.ts";
import { NPM_HOSTS } from "./npm_hosts.ts";
import { HOST_NAMES } from "./report.ts";
import { findHost } from "../../src/profiles/hosts.ts";

/** Sizes the bisection starts between: hosts show the low one whole and cut the high one. */
export const PROBE_LOW = 1024;
export const PROBE_HIGH = 256 * 1024;
/** Probes per host run, and runs per path: bounds the context and the time. */
const PROBES_PER_RUN = 6;
const MAX_RUNS = 6;
/** Attempts to reach a first probe (a host may still be starting the server). */
const MAX_WARMUPS = 20;

/** Down to the byte: the largest size shown whole is the next one's neighbour. */
const precise = (lo: number, hi: number) => hi - lo <= 1;

export interface Bisection {
  /** The largest size shown whole so far. */
  lo: number;
  /** The smallest size cut so far. */
  hi: number;
  loSeen: boolean;
  hiSeen: boolean;
  /** The high size arrived whole: no cut at or below it. */
  noCut: boolean;
}

export const START: Bisection = {
  lo: PROBE_LOW,
  hi: PROBE_HIGH,
  loSeen: false,
  hiSeen: false,
  noCut: false,
};

/** The next size to ask for, or null when the cut is known. */
export function nextSize(state: Bisection): number | null {
  if (!state.loSeen) return state.lo;
  if (!state.hiSeen) return state.hi;
  if (state.noCut || precise(state.lo, state.hi)) return null;
  return Math.floor((state.lo + state.hi) / 2);
}

/** The state after the model saw the record of `size` bytes whole, or not. */
export function advance(state: Bisection, size: number, whole: boolean): Bisection {
  if (!state.loSeen) {
    if (!whole) throw new Error(`the host cut even a ${size} B result`);
    return { ...state, loSeen: true };
  }
  if (!state.hiSeen) return { ...state, hiSeen: true, noCut: whole };
  return whole ? { ...state, lo: size } : { ...state, hi: size };
}

const probeJson = new Map<number, string>();

/**
 * Whether `shown` holds the probe record of `size` bytes whole (as written or escaped), in as
 * many copies as the host shows (Cline shows the result as JSON: the text escaped, then the
 * structured data; a cut that keeps only the tail's copy is a cut).
 */
export function shownWhole(shown: string, size: number, copies = 1): boolean {
  let record = probeJson.get(size);
  if (record === undefined) {
    if (probeJson.size > 64) probeJson.clear();
    record = JSON.stringify(probeRecord(size));
    probeJson.set(size, record);
  }
  return shown.length >= size && copiesShown(shown, record) >= copies;
}

/** How many whole copies of `text` `shown` holds, as written or JSON-escaped once or twice. */
export function copiesShown(shown: string, text: string): number {
  let copies = 0;
  let form = text;
  for (let level = 0; level < 3; level++) {
    copies += shown.split(form).length - 1;
    form = JSON.stringify(form).slice(1, -1);
  }
  return copies;
}

/**
 * Bytes of the probe result of `bytes` as `host` shows it (its profile's `resultShownAs`):
 * `bytes` for a host that shows one copy; the result's JSON for Cline.
 */
export function probeShownBytes(host: string, bytes: number): number {
  return hostForm(findHost(host)?.resultShownAs).resultBytes(probeResult(bytes));
}

/** How many copies of a result's envelope `host` shows (its profile says). */
export function copiesOf(host: string): number {
  return findHost(host)?.resultShownAs === "result-json" ? 2 : 1;
}

/** The state after each shown result in turn, and the sizes asked. */
export function replay(start: Bisection, shown: readonly string[], copies = 1): Bisection {
  let state = start;
  for (const text of shown) {
    const size = nextSize(state);
    if (size === null) break;
    state = advance(state, size, shownWhole(text, size, copies));
  }
  return state;
}

/** One call the scripted model makes: a tool of ours and its arguments. */
export interface ModelCall {
  tool: string;
  args: Record<string, unknown>;
}

/** The probe of `size` bytes, as a call. */
const probeCall = (size: number): ModelCall => ({ tool: PROBE_TOOL, args: { bytes: size } });

/** How one path of one host is driven: how it is run and how the model asks and reads. */
export interface ProbePath {
  id: string;
  label: string;
  pkg: HostPackage;
  adapter: HostAdapter;
  run(bin: string, rig: Rig, url: string): Promise<RunResult>;
  /** The probe results the model was shown so far, in order. */
  shown(body: unknown): string[];
  /** The answer that makes the next call (`call`), or a step towards it. */
  ask(request: ScriptedRequest, call: ModelCall, asked: number): Response | null;
  fallback(request: ScriptedRequest): Response;
}

/** Whether exec printed a probe record (whole or cut), not an error of a server still starting. */
const isProbe = (text: string) => /\\?"items\\?":\[/.test(text);

function dialectPath(dialect: Dialect) {
  return {
    // The model calls nothing but the probe: every result is one, whatever the host made of it.
    shown: (body: unknown) => dialect.read(body).results,
    fallback: (request: ScriptedRequest) => dialect.text("done", request),
  };
}

/** A dialect whose tool list holds the tool once the server is connected. */
function listedAsk(dialect: Dialect) {
  return (request: ScriptedRequest, call: ModelCall, asked: number): Response | null => {
    if (!dialect.isTurn(request.path, request.body)) return null;
    const offered = dialect.read(request.body).offered.find((name) => name.endsWith(call.tool));
    if (offered === undefined) return null;
    return dialect.toolCall(offered, call.args, asked, request);
  };
}

const claudeArgs = ["-p", "Probe.", "--allowedTools", "mcp__portreeve__*", "--max-turns", "20"];

export const PROBE_PATHS: readonly ProbePath[] = [
  {
    id: "claude",
    label: `Claude Code ${claude.pkg.version}`,
    pkg: claude.pkg,
    adapter: claude,
    run: (bin, rig, url) =>
      runBounded(bin, claudeArgs, {
        env: claudeEnv(rig, url),
        cwd: rig.workdir,
        timeoutMs: HOST_RUN_TIMEOUT_MS,
      }),
    ...dialectPath(anthropic),
    ask: listedAsk(anthropic),
  },
  {
    id: "claude-latest",
    label: `Claude Code ${CLAUDE_LATEST.version}`,
    pkg: CLAUDE_LATEST,
    adapter: claude,
    // Tool search off, so the probe is in the list: how results are shown does not depend on it.
    run: (bin, rig, url) =>
      runBounded(bin, claudeArgs, {
        env: { ...claudeEnv(rig, url), ENABLE_TOOL_SEARCH: "false" },
        cwd: rig.workdir,
        timeoutMs: HOST_RUN_TIMEOUT_MS,
      }),
    ...dialectPath(anthropic),
    ask: listedAsk(anthropic),
  },
  {
    id: "codex-classic",
    label: `Codex ${codex.pkg.version} classic`,
    pkg: codex.pkg,
    adapter: codex,
    run: (bin, rig, url) => codex.run(bin, rig, url),
    ...dialectPath(openaiResponses),
    shown: (body) =>
      inputsOf(body, "function_call_output")
        .filter((item) => !String(item.call_id).startsWith(STALL_ID))
        .map(outputText),
    ask(request, call, asked) {
      return listedAsk(openaiResponses)(request, call, asked) ??
        // Codex asks before the server is listed: one of its own tools brings another turn.
        stall(request, "list_mcp_resources", "{}");
    },
  },
  {
    id: "codex-search",
    label: `Codex ${codex.pkg.version} tool_search (${CODEX_SEARCH_MODEL})`,
    pkg: codex.pkg,
    adapter: codex,
    run: (_bin, rig, url) => runCodex(rig, url, CODEX_SEARCH_MODEL, "Probe."),
    shown: (body) => outputsOf(body, "function_call_output"),
    fallback: (request) => openaiResponses.text("done", request),
    ask(request, call, asked) {
      const loaded = records(isRecord(request.body) ? request.body.input : undefined)
        .some((item) =>
          item.type === "tool_search_output" &&
          records(item.tools).some((tool) => tool.name === "mcp__portreeve")
        );
      if (!loaded) {
        const searches = inputsOf(request.body, "tool_search_output").length;
        return searches >= MAX_WARMUPS ? null : responsesStream({
          type: "tool_search_call",
          id: `ts_${searches}`,
          call_id: `call_ts_${searches}`,
          execution: "client",
          status: "completed",
          arguments: { query: "portreeve probe", limit: 8 },
        });
      }
      return openaiResponses.toolCall(`mcp__portreeve:${call.tool}`, call.args, asked, request);
    },
  },
  {
    id: "codex-code",
    label: `Codex ${codex.pkg.version} code mode (${CODEX_CODE_MODEL})`,
    pkg: codex.pkg,
    adapter: codex,
    run: (_bin, rig, url) => runCodex(rig, url, CODEX_CODE_MODEL, "Probe."),
    // What exec printed; a run before the server was ready printed an error, not a record.
    shown: (body) => outputsOf(body, "custom_tool_call_output").filter(isProbe),
    fallback: (request) => openaiResponses.text("done", request),
    ask(request, call, asked) {
      const execs = inputsOf(request.body, "custom_tool_call_output").length;
      if (execs >= asked + MAX_WARMUPS) return null;
      return responsesStream({
        type: "custom_tool_call",
        id: `ctc_${execs}`,
        call_id: `call_exec_${execs}`,
        name: "exec",
        input: [
          `const result = await tools.mcp__portreeve__${call.tool}(${JSON.stringify(call.args)});`,
          "text(JSON.stringify(result.structuredContent));",
        ].join("\n"),
        status: "completed",
      });
    },
  },
  {
    id: "gemini",
    label: `Gemini CLI ${geminiCli.pkg.version}`,
    pkg: geminiCli.pkg,
    adapter: geminiCli,
    run: (bin, rig, url) => geminiCli.run(bin, rig, url),
    ...dialectPath(gemini),
    ask: listedAsk(gemini),
  },
  // The npm hosts beside the three, each on the one path it takes (Qwen Code's deferred tools
  // are fetched with its tool_search and called through its tool_call by its dialect).
  ...NPM_HOSTS.map((adapter): ProbePath => ({
    id: adapter.pkg.host,
    label: `${HOST_NAMES[adapter.pkg.host] ?? adapter.pkg.host} ${adapter.pkg.version}`,
    pkg: adapter.pkg,
    adapter,
    run: (bin, rig, url) => adapter.run(bin, rig, url),
    ...dialectPath(adapter.dialect),
    ask: listedAsk(adapter.dialect),
  })),
];

function inputsOf(body: unknown, type: string): Record<string, unknown>[] {
  return records(isRecord(body) ? body.input : undefined).filter((item) => item.type === type);
}

/** An output item's text (a string, or its text parts joined). */
function outputText(item: Record<string, unknown>): string {
  return typeof item.output === "string"
    ? item.output
    : records(item.output).map((part) => String(part.text ?? "")).join("");
}

function outputsOf(body: unknown, type: string): string[] {
  return inputsOf(body, type).map(outputText);
}

const STALL_ID = "call_stall_";

let stalls = 0;
function stall(request: ScriptedRequest, name: string, args: string): Response | null {
  if (!request.path.endsWith("/responses") || stalls >= MAX_WARMUPS * MAX_RUNS) return null;
  stalls++;
  return responsesStream({
    type: "function_call",
    id: `fc_stall_${stalls}`,
    call_id: `${STALL_ID}${stalls}`,
    name,
    arguments: args,
    status: "completed",
  });
}

/** What a host made of a result just over its cut, in words for docs/hosts.md. */
function overCut(shown: string, size: number): string {
  if (/exceeds maximum allowed tokens\. Output has been saved to/.test(shown)) {
    return "an error saying the result was saved to a file, with its path";
  }
  const kept = shown.match(/Showing first ([\d,]+) and last ([\d,]+) characters/);
  if (kept !== null) {
    return `the first ${kept[1]} and last ${
      kept[2]
    } characters (its own wrapper included) and the path of the whole`;
  }
  if (/…\d+ tokens truncated…/.test(shown)) {
    return "head and tail, the middle replaced by `…N tokens truncated…`";
  }
  return describeLongResult(shown, size);
}

export interface Cut {
  id: string;
  host: string;
  label: string;
  /** The largest size shown whole; null when even the high probe arrived whole. */
  limitBytes: number | null;
  /** The smallest size cut (the high probe when nothing was cut). */
  cutBytes: number;
  /** What the host did with a result over its cut, in words. */
  overCut: string;
  runs: number;
}

const cuts = new Map<string, Promise<Cut>>();

export function measuredCut(path: ProbePath): Promise<Cut> {
  return sharedRun(cuts, path.id, () => bisect(path));
}

async function bisect(path: ProbePath): Promise<Cut> {
  const bin = await installedBin(path.pkg);
  const copies = copiesOf(path.pkg.host);
  let state = START;
  /** What the model was shown for each size the host cut. */
  const cutShown = new Map<number, string>();
  for (let run = 1; run <= MAX_RUNS; run++) {
    const start = state;
    const rig = await startRig({ seed: false });
    try {
      const printed = await printedConfig(path.adapter.pkg.host, rig.socket);
      await path.adapter.configure(rig, withServerEntry(printed, await probeEntry()));
      const model = startScriptedModel((request) => {
        const shown = path.shown(request.body);
        const now = replay(start, shown, copies);
        const size = nextSize(now);
        if (size === null || shown.length >= PROBES_PER_RUN) return null;
        return path.ask(request, probeCall(size), shown.length);
      }, path.fallback);
      try {
        const result = await path.run(bin, rig, model.url);
        const last = model.requests.at(-1);
        const shown = last === undefined ? [] : path.shown(last.body);
        if (shown.length === 0) {
          throw new Error(
            `${path.label} showed its model no probe result (exit ${result.code}):\n` +
              `${result.stdout.slice(-1500)}\n${result.stderr.slice(-1500)}`,
          );
        }
        let walk = start;
        for (const text of shown) {
          const size = nextSize(walk);
          if (size === null) break;
          const whole = shownWhole(text, size, copies);
          if (!whole) cutShown.set(size, text);
          walk = advance(walk, size, whole);
        }
        state = walk;
      } finally {
        await model.close();
      }
    } finally {
      await rig.close();
    }
    if (nextSize(state) === null) {
      return {
        id: path.id,
        host: path.pkg.host,
        label: path.label,
        limitBytes: state.noCut ? null : state.lo,
        cutBytes: state.hi,
        overCut: state.noCut ? "nothing cut" : overCut(cutShown.get(state.hi) ?? "", state.hi),
        runs: run,
      };
    }
  }
  throw new Error(`${path.label}: no cut found in ${MAX_RUNS} runs (${JSON.stringify(state)})`);
}
