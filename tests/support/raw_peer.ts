/**
 * The one raw JSON-RPC peer of the tests and the bench: spawns the real `serve` process under
 * the real confinement flags (or wraps any child's stdio), writes exact bytes, and checks EVERY
 * stdout byte as it arrives (strict UTF-8, one JSON-RPC 2.0 message per line). Responses are
 * indexed by id, so thousands of pipelined calls cost O(1) each.
 */
import { concatBytes } from "../../src/shared/bytes.ts";
import { isErrorResult, parseErrorText } from "../../src/results/result.ts";
import { type BridgeOptions, type Envelope, spawnBridgeProcess } from "../e2e/harness.ts";

export type Id = string | number;
export type Message = Record<string, unknown> & { id?: Id | null };

/** A result's envelope as tests read it, the same for the raw peer and the SDK client. */
export type ToolEnvelope = Envelope;

export interface ToolResult {
  isError?: boolean;
  /**
   * A success's envelope; a flagged error has none, an unflagged one (a host whose profile says
   * `flagsToolErrors: false`) only `{ok: false}`: an error's text is its envelope.
   */
  structuredContent?: ToolEnvelope;
  content?: { type: string; text: string }[];
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/** A key that keeps `1` and `"1"` apart. */
export function idKey(id: Id | null | undefined): string {
  return id === null || id === undefined ? "null" : `${typeof id}:${id}`;
}

export interface Peer {
  readonly pid: number;
  readonly process: Deno.ChildProcess;
  send(data: string | Uint8Array): Promise<void>;
  /** Sends a request with a fresh numeric id and waits for its response. */
  request(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<Message>;
  /** Sends a request without waiting; returns its id. */
  post(method: string, params?: Record<string, unknown>): Promise<number>;
  /**
   * Waits for the (first) response carrying `id`; fails if stdout ends without it. A
   * `timeoutMs` is for the suites that measure time (the fast suite waits for events only).
   */
  response(id: Id | null, timeoutMs?: number): Promise<Message>;
  /** Resolves once `check()` holds, re-checked at each stdout line; fails if stdout ends. */
  when(check: () => boolean): Promise<void>;
  /** The length in bytes of the stdout line that carried the response to `id`. */
  responseBytes(id: Id): number | undefined;
  /** A tools/call round trip; returns the result (throws on a JSON-RPC error). */
  tool(name: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<ToolResult>;
  /** Legacy `initialize` + `notifications/initialized` (a busy machine may want more time). */
  initialize(timeoutMs?: number): Promise<void>;
  /** Every response seen per id key (a correct bridge answers each id exactly once). */
  readonly byId: Map<string, Message[]>;
  /** Number of stdout lines parsed so far. */
  frameCount(): number;
  /** Problems found in stdout: non-UTF-8, non-JSON, non-JSON-RPC lines. Must stay empty. */
  readonly violations: string[];
  /** How often each error code came back in a tool result, over every response seen. */
  readonly errorCodes: Map<string, number>;
  /** Raw stdout bytes so far (decoded leniently, for scans). */
  stdoutText(): string;
  stderrText(): string;
  closeStdin(): Promise<void>;
  exited(): Promise<Deno.CommandStatus>;
  /** VmRSS / VmHWM in KiB from /proc. */
  memory(): Promise<{ rssKiB: number; hwmKiB: number }>;
}

export interface PeerOptions {
  /**
   * Keep every response and every stdout byte (the default), for checks after the fact. A
   * long-running measurement turns it off so the peer holds only responses not yet awaited.
   */
  history?: boolean;
}

export function spawnPeer(opts: BridgeOptions): Peer {
  const process = spawnBridgeProcess(opts);
  return attachPeer(process, process.stdin, process.stdout, process.stderr);
}

/**
 * Wraps already-spawned stdio streams (e.g. a host process standing between us and a bridge).
 * `stderr` is null when the child's stderr is not piped.
 */
export function attachPeer(
  process: Deno.ChildProcess,
  stdin: WritableStream<Uint8Array>,
  stdout: ReadableStream<Uint8Array>,
  stderr: ReadableStream<Uint8Array> | null,
  pid = process.pid,
  { history = true }: PeerOptions = {},
): Peer {
  const writer = stdin.getWriter();
  const byId = new Map<string, Message[]>();
  const lineBytes = new Map<string, number>();
  const violations: string[] = [];
  const errorCodes = new Map<string, number>();
  const chunks: Uint8Array[] = [];
  let partial: Uint8Array[] = [];
  let frames = 0;
  let err = "";
  let nextId = 1_000_000;
  const waiters = new Map<string, ((m: Message) => void)[]>();
  /** What waits on stdout: told of each line, and of its end. */
  const watchers = new Set<{ line(): void; end(): void }>();
  let ended = false;

  const onLine = (line: Uint8Array) => {
    frames++;
    for (const watcher of [...watchers]) watcher.line();
    let text: string;
    try {
      text = strictUtf8.decode(line);
    } catch {
      violations.push(`line ${frames}: not UTF-8`);
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      violations.push(`line ${frames}: not JSON: ${text.slice(0, 200)}`);
      return;
    }
    const m = message as Message;
    if (typeof m !== "object" || m === null || Array.isArray(m) || m.jsonrpc !== "2.0") {
      violations.push(`line ${frames}: not a JSON-RPC 2.0 object: ${text.slice(0, 200)}`);
      return;
    }
    const isResponse = "id" in m && ("result" in m || "error" in m);
    const isNotification = typeof m.method === "string" && !("id" in m);
    if (!isResponse && !isNotification) {
      violations.push(
        `line ${frames}: neither a response nor a notification: ${text.slice(0, 200)}`,
      );
      return;
    }
    if ("error" in m) {
      const e = m.error as { code?: unknown; message?: unknown };
      if (!Number.isInteger(e?.code) || typeof e?.message !== "string") {
        violations.push(`line ${frames}: malformed error object: ${text.slice(0, 200)}`);
      }
    }
    if (!isResponse) return;
    const code = toolErrorCode(m.result);
    if (code !== undefined) errorCodes.set(code, (errorCodes.get(code) ?? 0) + 1);
    const key = idKey(m.id);
    const pending = waiters.get(key);
    if (history || !pending) {
      const list = byId.get(key) ?? [];
      list.push(m);
      byId.set(key, list);
      lineBytes.set(key, line.length);
    }
    if (pending) {
      waiters.delete(key);
      for (const w of pending) w(m);
    }
  };

  const pumpStdout = (async () => {
    for await (const chunk of stdout) {
      if (history) chunks.push(chunk);
      let start = 0;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
        partial.push(chunk.subarray(start, i));
        onLine(concatBytes(partial));
        partial = [];
        start = i + 1;
      }
      if (start < chunk.length) partial.push(chunk.subarray(start));
    }
    if (partial.length > 0) violations.push("stdout ended mid-frame");
  })().finally(() => {
    ended = true;
    for (const watcher of [...watchers]) watcher.end();
  });
  const pumpStderr = (async () => {
    if (!stderr) return;
    const decoder = new TextDecoder();
    for await (const chunk of stderr) err += decoder.decode(chunk, { stream: true });
  })();

  const response = (id: Id | null, timeoutMs?: number): Promise<Message> => {
    const key = idKey(id);
    const seen = byId.get(key);
    if (seen) {
      if (!history) {
        byId.delete(key);
        lineBytes.delete(key);
      }
      return Promise.resolve(seen[0]);
    }
    return new Promise((resolve, reject) => {
      const settle = () => {
        if (timer !== undefined) clearTimeout(timer);
        watchers.delete(watcher);
        const list = waiters.get(key) ?? [];
        waiters.set(key, list.filter((w) => w !== done));
      };
      const fail = (why: string) => {
        settle();
        reject(new Error(`no response for id ${key}: ${why}`));
      };
      const timer = timeoutMs === undefined
        ? undefined
        : setTimeout(() => fail(`not within ${timeoutMs} ms`), timeoutMs);
      const watcher = { line: () => {}, end: () => fail("stdout ended") };
      const done = (m: Message) => {
        settle();
        resolve(m);
      };
      if (ended) return fail("stdout ended");
      watchers.add(watcher);
      const list = waiters.get(key) ?? [];
      list.push(done);
      waiters.set(key, list);
    });
  };

  const when = (check: () => boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      const watcher = {
        line: () => {
          // Checked after the line is indexed (this runs first, so look on the next turn).
          queueMicrotask(() => {
            if (!check() || !watchers.has(watcher)) return;
            watchers.delete(watcher);
            resolve();
          });
        },
        end: () => {
          watchers.delete(watcher);
          if (check()) resolve();
          else reject(new Error("stdout ended before the awaited condition held"));
        },
      };
      if (check()) return resolve();
      if (ended) return watcher.end();
      watchers.add(watcher);
    });

  const send = async (data: string | Uint8Array) => {
    await writer.write(typeof data === "string" ? encoder.encode(data) : data);
  };

  const post = async (method: string, params?: Record<string, unknown>) => {
    const id = nextId++;
    await send(frame({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }));
    return id;
  };

  const request = async (method: string, params?: Record<string, unknown>, timeoutMs?: number) =>
    await response(await post(method, params), timeoutMs);

  return {
    pid,
    process,
    send,
    post,
    request,
    response,
    when,
    responseBytes: (id) => lineBytes.get(idKey(id)),
    async tool(name, args = {}, timeoutMs) {
      const m = await request("tools/call", { name, arguments: args }, timeoutMs);
      if (!("result" in m)) throw new Error(`${name}: JSON-RPC error ${JSON.stringify(m.error)}`);
      return m.result as ToolResult;
    },
    async initialize(timeoutMs?: number) {
      const m = await request("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "raw-peer", version: "0" },
      }, timeoutMs);
      if (!("result" in m)) throw new Error(`initialize failed: ${JSON.stringify(m)}`);
      await send(frame({ jsonrpc: "2.0", method: "notifications/initialized" }));
    },
    byId,
    frameCount: () => frames,
    violations,
    errorCodes,
    stdoutText: () => new TextDecoder().decode(concatBytes(chunks)),
    stderrText: () => err,
    closeStdin: async () => {
      await writer.close().catch(() => {});
    },
    exited: async () => {
      const status = await process.status;
      await Promise.all([pumpStdout, pumpStderr]);
      return status;
    },
    memory: () => readMemory(pid),
  };
}

export function frame(message: unknown): string {
  return JSON.stringify(message) + "\n";
}

/** A request frame with an id of the caller's choosing. */
export function requestFrame(id: Id, method: string, params?: Record<string, unknown>): string {
  return frame({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
}

/** The legacy opening a client sends: `initialize` as `id`, then `notifications/initialized`. */
export function openingFrames(id: Id, clientName: string): string {
  return requestFrame(id, "initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: clientName, version: "0" },
  }) + frame({ jsonrpc: "2.0", method: "notifications/initialized" });
}

/** Reads /proc/<pid>/status through `cat`: Deno asks for --allow-all to read another /proc. */
async function procStatus(pid: number): Promise<string | undefined> {
  const out = await new Deno.Command("cat", {
    args: [`/proc/${pid}/status`],
    stdout: "piped",
    stderr: "null",
  }).output();
  return out.success ? new TextDecoder().decode(out.stdout) : undefined;
}

export async function readMemory(pid: number): Promise<{ rssKiB: number; hwmKiB: number }> {
  const status = await procStatus(pid);
  if (!status) throw new Error(`process ${pid} is gone`);
  const field = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
  return { rssKiB: field("VmRSS"), hwmKiB: field("VmHWM") };
}

/** Whether `pid` still runs (a zombie awaiting its reaper counts as gone). */
export async function alive(pid: number): Promise<boolean> {
  const status = await procStatus(pid);
  return status !== undefined && !/^State:\s+[ZX]/m.test(status);
}

/**
 * The tool envelope of a result: a success's structuredContent, or an error's text read back
 * (its `details`, left out when empty, read as `{}`), flagged or not.
 */
export function envelopeOf(result: ToolResult): ToolEnvelope {
  const structured = result.structuredContent;
  if (structured !== undefined && structured.ok !== false) return structured;
  const text = result.content?.[0]?.text;
  const error = text === undefined ? undefined : parseErrorText(text);
  if (!error) throw new Error(`not a tool envelope: ${JSON.stringify(result)}`);
  return { ok: false, error: { ...error, details: error.details ?? {} } };
}

/** The error code of a tools/call result, if it is a tool error. */
function toolErrorCode(result: unknown): string | undefined {
  const r = result as ToolResult | undefined;
  if (r === undefined || !isErrorResult(r)) return undefined;
  try {
    return envelopeOf(r).error?.code;
  } catch {
    return "(not a tool envelope)";
  }
}

/**
 * `portreeve_internal` is only ever the bridge's own bug: a fuzz, fault or load run that saw
 * one found a bug, whatever else it checked.
 */
export function assertNoBridgeBug(peer: Pick<Peer, "errorCodes">, label = "this run"): void {
  const bugs = peer.errorCodes.get("portreeve_internal") ?? 0;
  if (bugs > 0) {
    throw new Error(
      `${label}: ${bugs} result(s) were portreeve_internal (a bridge bug); codes seen: ${
        JSON.stringify(Object.fromEntries(peer.errorCodes))
      }`,
    );
  }
}
