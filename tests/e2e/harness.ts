/**
 * End-to-end harness: spawns the real `serve` process with the real confinement flags and
 * drives it with the MCP SDK client over real stdio, against a simulator on a real socket.
 */
import assert from "node:assert/strict";
import type {
  Client,
  DiscoverResult,
  ElicitRequest,
  ElicitResult,
  JSONRPCMessage,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { fileURLToPath as fromFileUrl } from "node:url";
import { childEnv, confinedFlags } from "../../src/shared/permissions.ts";
import { type Simulator, type SimulatorOptions, startSimulator } from "../../src/simulator/mod.ts";
import { errorText, isErrorResult, parseErrorText } from "../../src/results/result.ts";
import { denoFinished } from "../support/processes.ts";
import { type DaemonTime, testTime } from "../support/daemon_clock.ts";
import { HostClient } from "../support/host_client.ts";
import listing from "../../src/catalogue/tools_list.json" with { type: "json" };
import { inToolset, type ToolKind, type Toolset } from "../../src/shared/options.ts";

export const SOURCE_ENTRY = fromFileUrl(new URL("../../main.ts", import.meta.url));
export const BUNDLE_ENTRY = fromFileUrl(new URL("../../dist/main.js", import.meta.url));

export type Era = "legacy" | "auto" | "modern";

export interface BridgeOptions {
  socketPath: string;
  era?: Era;
  /** The bridge's entry: BUNDLE_ENTRY (the default) or SOURCE_ENTRY, run under its own flags. */
  entry?: string;
  /** Extra `serve` flags, e.g. ["--label", "e2e"]. */
  serveArgs?: string[];
  /** Socket the permission grant names (defaults to socketPath). */
  grantSocket?: string;
  env?: Record<string, string>;
  /** Declares form elicitation and answers the bridge's questions with this (a person). */
  elicitation?: (request: ElicitRequest["params"]) => Promise<ElicitResult>;
  /** Starts the process under `ulimit -n` this low (through `sh`, which `exec`s it). */
  fdLimit?: number;
  /** The name the client gives itself in `initialize` (a host's `clientInfo.name`). */
  clientName?: string;
  /**
   * On the 2026-07-28 era: what an earlier bridge of the same command answered to
   * `server/discover` (its `client.getDiscoverResult()`). The client connects as a host that
   * remembers it, instead of first probing a sibling process, the SDK's way to learn the era of
   * a stdio server it does not know (each probe is one more bridge started and stopped).
   */
  discovered?: DiscoverResult;
}

export interface Bridge {
  client: Client;
  transport: StdioClientTransport;
  /** Everything the bridge wrote to stderr so far. */
  stderr(): string;
  /** Every stdout frame the bridge sent so far (raw lines), for byte scans. */
  stdoutFrames(): string[];
  pid(): number | null;
  close(): Promise<void>;
}

/** How many tools a toolset registers, from the kinds in the served listing. */
export function registered(toolset: Toolset): number {
  return listing.tools.filter((entry) => inToolset(entry.kind as ToolKind, toolset)).length;
}

/** A command of the bundled bridge, run as an installed launcher runs it. */
export function runBundled(args: string[], socketPath: string) {
  return denoFinished(["run", ...confinedFlags(socketPath, "bundle"), BUNDLE_ENTRY, ...args], {
    env: { PORTREEVE_SOCKET: socketPath },
  });
}

export function bridgeArgs(opts: BridgeOptions): string[] {
  const entry = opts.entry ?? BUNDLE_ENTRY;
  const form = entry === SOURCE_ENTRY ? "source" : "bundle";
  return [
    "run",
    ...confinedFlags(opts.grantSocket ?? opts.socketPath, form),
    entry,
    "serve",
    ...(opts.serveArgs ?? []),
  ];
}

/** The confined `serve` process with piped stdio, for tests that speak raw frames. */
export function spawnBridgeProcess(opts: BridgeOptions): Deno.ChildProcess {
  const limited = opts.fdLimit !== undefined;
  return new Deno.Command(limited ? "sh" : Deno.execPath(), {
    args: limited
      ? ["-c", `ulimit -n ${opts.fdLimit} && exec "$0" "$@"`, Deno.execPath(), ...bridgeArgs(opts)]
      : bridgeArgs(opts),
    env: childEnv({ PORTREEVE_SOCKET: opts.socketPath, ...opts.env }),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

export async function startBridge(opts: BridgeOptions): Promise<Bridge> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: bridgeArgs(opts),
    // The SDK passes only HOME, PATH and a few others unless told otherwise.
    env: childEnv({ PORTREEVE_SOCKET: opts.socketPath, ...opts.env }),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const frames: string[] = [];
  const era = opts.era ?? "legacy";
  const client = new HostClient(
    { name: opts.clientName ?? "portreeve-mcp-e2e", version: "0.0.0" },
    {
      versionNegotiation: {
        mode: era === "modern" ? { pin: "2026-07-28" } : era,
      },
      ...(opts.elicitation ? { capabilities: { elicitation: { form: {} } } } : {}),
    },
  );
  const answer = opts.elicitation;
  if (answer) client.setRequestHandler("elicitation/create", (request) => answer(request.params));
  await client.connect(
    transport,
    opts.discovered ? { prior: { kind: "modern", discover: opts.discovered } } : undefined,
  );
  const inner = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    frames.push(JSON.stringify(message));
    inner?.(message);
  };
  return {
    client,
    transport,
    stderr: () => stderr,
    stdoutFrames: () => frames,
    pid: () => transport.pid,
    close: async () => {
      await client.close();
    },
  };
}

/**
 * A stretch of the automatic port range of its own for each simulator: test files run side by
 * side, and those that bind the ports they lease (a real listener) must not pick the same one.
 * Every stretch starts below the OS ephemeral range (32768 on Linux), which leases skip.
 */
export function ownStretch(): { start: number; end: number } {
  return { start: 10_240 + 100 * Math.floor(Math.random() * 200), end: 49_151 };
}

/**
 * A simulator on a fresh temp socket; remove the directory with `cleanup`. Its time is the fast
 * suite's (`testTime()`, tests/support/daemon_clock.ts) unless `options` give a clock or lapses
 * (`REAL_TIME` for scenarios about real renewals and lapses).
 */
export async function withSimulator(
  options: Partial<SimulatorOptions> = {},
): Promise<
  { sim: Simulator; socketPath: string; dir: string; time: DaemonTime; cleanup(): Promise<void> }
> {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-" });
  const socketPath = `${dir}/portreeve.sock`;
  const test = testTime();
  const time = { clock: options.clock ?? test.clock, lapses: options.lapses ?? test.lapses };
  const sim = await startSimulator({
    socketPath,
    observeHost: false,
    ...options,
    ...time,
    settings: { automaticPortRanges: [ownStretch()], ...options.settings },
  });
  return {
    sim,
    socketPath,
    dir,
    time,
    cleanup: async () => {
      await sim.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

export interface Envelope {
  ok: boolean;
  data?: Record<string, unknown>;
  error?: {
    code: string;
    message: string;
    retryable: boolean;
    nextStep: string;
    details: Record<string, unknown>;
  };
}

/**
 * Calls a tool and returns its envelope, whole text and whether it is an error. Every call also
 * checks the result format hosts rely on: a success is one text block holding exactly the
 * envelope of structuredContent as compact JSON; an error is one text block (code line, next
 * step, details), flagged (`isError`, no structuredContent) or, for a host whose profile says
 * `flagsToolErrors: false`, unflagged (structuredContent `{ok: false}` alone); `details` read as
 * `{}` when the result leaves it out.
 */
export async function call(
  bridge: Bridge,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ envelope: Envelope; text: string; isError: boolean }> {
  const result = await bridge.client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  const isError = isErrorResult(result);
  if (isError && content[0]?.text?.startsWith("portreeve_internal")) {
    // The agent is told no more; the bridge's log says what the bug was (a gate refusal
    // names the request it kept back, and why).
    throw new Error(
      `${name} answered portreeve_internal, a bridge bug. Its log:\n${bridge.stderr()}`,
    );
  }
  assertResultFormat(name, content, result.structuredContent, result.isError === true);
  const text = content[0].text;
  if (isError) {
    const error = parseErrorText(text)!;
    return {
      envelope: { ok: false, error: { ...error, details: error.details ?? {} } },
      text,
      isError,
    };
  }
  return { envelope: result.structuredContent as unknown as Envelope, text, isError };
}

export function assertResultFormat(
  name: string,
  content: { type: string; text: string }[],
  structured: unknown,
  flagged: boolean,
): void {
  assert.equal(content.length, 1, `${name}: one text block`);
  assert.equal(content[0].type, "text", name);
  const text = content[0].text;
  const unflagged = JSON.stringify(structured) === '{"ok":false}';
  if (flagged || unflagged) {
    if (flagged) assert.equal(structured, undefined, `${name}: a flagged error has no more`);
    const error = parseErrorText(text);
    assert.ok(error, `${name}: an error's text is its code line, next step and details`);
    assert.equal(text, errorText(error), `${name}: written once, read back the same`);
    assert.match(error.code, /^portreeve_[a-z_]+$/, name);
    assert.ok(error.nextStep.length > 0, `${name}: error has a next step`);
    return;
  }
  assert.equal(text, JSON.stringify(structured), `${name}: the text is structuredContent's JSON`);
  assert.equal((structured as Envelope).ok, true, `${name}: isError matches ok`);
}
