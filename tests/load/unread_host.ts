/**
 * A host that writes a flood of requests and does not read stdout, then drains: the driver of
 * the memory bound. It runs the real `serve` process (real flags, real stdio), writes as far as
 * the pipe allows while reading nothing, waits until the bridge holds stdin, then reads all of
 * stdout while the rest of the flood goes in. It samples VmRSS/VmHWM from /proc throughout and
 * counts every answer per id, so the caller can assert the bound and exactly-once answers.
 */
import { spawnBridgeProcess, withSimulator } from "../e2e/harness.ts";
import { MAX_FRAME_BYTES } from "../../src/transport/frames.ts";
import { openingFrames, readMemory, sleep } from "../support/raw_peer.ts";
import { envelope, HEALTH } from "../reliability/fake_daemon.ts";

const encoder = new TextEncoder();

/** What one flood sends: a request per id, a check of each answer, and the daemon behind. */
export interface FloodKind {
  name: string;
  /** The bytes of request `id` (parts may be shared between requests and are never changed). */
  request(id: number): Uint8Array[];
  /** Throws when `line` (a whole answer) is not the right answer to this kind of request. */
  check(line: string): void;
  /** The simulator, or a daemon that takes `slowDaemonMs` over every answer. */
  daemon: "simulator" | "slow";
  /**
   * Each request also draws one answer with a null id (a notification or an answer of the
   * host's refused unparsed), which `check` must accept too.
   */
  unnamedAnswers?: boolean;
}

const opening = encoder.encode(openingFrames("init", "unread-host"));

/** Requests whose whole text is `{"jsonrpc":"2.0","id":N,` then a shared tail. */
function sharedTail(tail: string): (id: number) => Uint8Array[] {
  const bytes = encoder.encode(tail + "\n");
  return (id) => [encoder.encode(`{"jsonrpc":"2.0","id":${id},`), bytes];
}

/** A tool call argument that fills the frame to just under the bridge's frame limit. */
const LARGE_ARGUMENT_CHARS = MAX_FRAME_BYTES - 512;
const large = "x".repeat(LARGE_ARGUMENT_CHARS);

function expect(fragment: string, what: string): (line: string) => void {
  return (line) => {
    if (!line.includes(fragment)) throw new Error(`not ${what}: ${head(line)}`);
  };
}

export const PING: FloodKind = {
  name: "ping",
  request: sharedTail(`"method":"ping"}`),
  check: expect('"result":{}', "a ping answer"),
  daemon: "simulator",
};

export const TOOLS_LIST: FloodKind = {
  name: "tools/list",
  request: sharedTail(`"method":"tools/list"}`),
  check: expect('"tools":[{', "a tools/list answer"),
  daemon: "simulator",
};

/**
 * A claim id of ~1 MiB: a valid request that waits for a call slot like any other; the tool
 * then refuses the id (not a UUID) as invalid input without asking the daemon.
 */
export const LARGE_CALL: FloodKind = {
  name: "1 MiB tools/call",
  request: sharedTail(
    `"method":"tools/call","params":{"name":"portreeve_claim_get","arguments":{"id":"${large}"}}}`,
  ),
  check: expect("portreeve_invalid_input", "an invalid-input result"),
  daemon: "simulator",
};

/** A ~1 MiB stack definition the daemon must judge, slowly: calls pile up pending. */
export const LARGE_CALL_SLOW_DAEMON: FloodKind = {
  name: "1 MiB tools/call, slow daemon",
  request: sharedTail(
    `"method":"tools/call","params":{"name":"portreeve_stack_definition_validate",` +
      `"arguments":{"definition":{"pad":"${large}"}}}}`,
  ),
  check: expect('"valid":false', "the daemon's verdict"),
  daemon: "slow",
};

/** How long the slow daemon holds each answer. */
export const SLOW_DAEMON_MS = 50;

export interface FloodFigures {
  kind: string;
  requests: number;
  /** Requests the host had written when the bridge held stdin (the pipe holds a few more). */
  writtenWhenHeld: number;
  /** VmRSS when the bridge held stdin, MiB. */
  heldRssMiB: number;
  /** VmHWM at the end: the peak of the whole run, MiB. */
  peakRssMiB: number;
  /** Milliseconds from the host starting to read until VmRSS was first under `underMiB`. */
  msToUnder: number | null;
  underMiB: number;
  /** VmRSS when the last answer arrived, MiB. */
  endRssMiB: number;
  /** Milliseconds from the last answer until VmRSS was under `underMiB` (null: not in 10 s). */
  msToUnderAfterLast: number | null;
  /** VmRSS at that moment (or after 10 s), MiB. */
  settledRssMiB: number;
  /** Wall time of the whole flood, seconds (printed, never asserted). */
  seconds: number;
}

export interface FloodOutcome {
  figures: FloodFigures;
  /** How often each request id was answered (index = id); the initialize id is not counted. */
  answers: Uint16Array;
  /** Answers whose id is not a request of the flood, or that failed the kind's check. */
  strays: string[];
  /** Answers with a null id, when the kind expects them (`unnamedAnswers`). */
  unnamed: number;
  exitCode: number;
}

/** Milliseconds between memory samples while waiting. */
const SAMPLE_MS = 100;
/** The host has been unable to write for this long: the bridge holds stdin. */
const STALL_MS = 1_000;
/** How long after the last answer VmRSS is watched for falling under the limit. */
const SETTLE_MS = 10_000;

/** Runs one flood of `count` requests of `kind` against a fresh bridge and daemon. */
export async function unreadFlood(
  kind: FloodKind,
  count: number,
  underMiB: number,
): Promise<FloodOutcome> {
  const started = performance.now();
  const daemon = kind.daemon === "slow" ? await startSlowDaemon() : await withSimulator();
  const bridge = spawnBridgeProcess({ socketPath: daemon.socketPath });
  const stderr = (async () => {
    for await (const _ of bridge.stderr) { /* drained so logs never block the bridge */ }
  })();
  const writer = bridge.stdin.getWriter();
  try {
    let written = 0;
    const writing = (async () => {
      await writer.write(opening);
      for (let id = 0; id < count; id++) {
        for (const part of kind.request(id)) await writer.write(part);
        written++;
      }
    })();
    let writeFailed: unknown;
    writing.catch((error) => writeFailed = error);

    // Held: the host's writes make no progress for a while (or it has written everything).
    let last = -1;
    let stalledSince = performance.now();
    while (written < count && writeFailed === undefined) {
      if (written !== last) {
        last = written;
        stalledSince = performance.now();
      } else if (performance.now() - stalledSince >= STALL_MS) break;
      await sleep(SAMPLE_MS);
    }
    if (writeFailed !== undefined) throw writeFailed;
    const held = await readMemory(bridge.pid);
    const writtenWhenHeld = written;

    // Drain: read everything while sampling memory.
    const drainStarted = performance.now();
    const answers = new Uint16Array(count);
    const strays: string[] = [];
    let answered = 0;
    let unnamed = 0;
    const reading = readLines(bridge.stdout, (line) => {
      const id = answerId(line);
      if (id === "init") return;
      if (id === null && kind.unnamedAnswers) {
        unnamed++;
        try {
          kind.check(line);
        } catch (error) {
          strays.push(String(error));
        }
        return;
      }
      if (typeof id !== "number" || id < 0 || id >= count) {
        strays.push(head(line));
        return;
      }
      try {
        kind.check(line);
      } catch (error) {
        strays.push(String(error));
      }
      if (answers[id]++ === 0) answered++;
    });
    let msToUnder: number | null = null;
    const sampleUnder = async () => {
      const memory = await readMemory(bridge.pid);
      if (msToUnder === null && memory.rssKiB < underMiB * 1024) {
        msToUnder = Math.round(performance.now() - drainStarted);
      }
      return memory;
    };
    while (answered < count || (kind.unnamedAnswers && unnamed < count)) {
      await sampleUnder();
      await sleep(SAMPLE_MS);
    }
    await writing;
    const end = await sampleUnder();
    const lastAnswer = performance.now();
    let settled = end;
    while (settled.rssKiB >= underMiB * 1024 && performance.now() - lastAnswer < SETTLE_MS) {
      await sleep(SAMPLE_MS);
      settled = await sampleUnder();
    }
    const msToUnderAfterLast = settled.rssKiB < underMiB * 1024
      ? Math.round(performance.now() - lastAnswer)
      : null;
    // Closing stdin ends the bridge; reading to stdout's end sees any late duplicate.
    await writer.close();
    const status = await bridge.status;
    await reading;
    return {
      figures: {
        kind: kind.name,
        requests: count,
        writtenWhenHeld,
        heldRssMiB: toMiB(held.rssKiB),
        peakRssMiB: toMiB(settled.hwmKiB),
        msToUnder,
        underMiB,
        endRssMiB: toMiB(end.rssKiB),
        msToUnderAfterLast,
        settledRssMiB: toMiB(settled.rssKiB),
        seconds: Math.round((performance.now() - started) / 100) / 10,
      },
      answers,
      strays,
      unnamed,
      exitCode: status.code,
    };
  } finally {
    await writer.close().catch(() => {});
    try {
      bridge.kill("SIGKILL");
    } catch { /* it has exited */ }
    await bridge.status;
    await stderr.catch(() => {});
    await daemon.cleanup();
  }
}

/**
 * A compatible daemon that judges every stack definition invalid, `SLOW_DAEMON_MS` after it
 * has read the whole request (the real daemon takes about a second per acquire).
 */
async function startSlowDaemon(): Promise<{ socketPath: string; cleanup(): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-slow-" });
  const socketPath = `${dir}/portreeve.sock`;
  const listening = Promise.withResolvers<void>();
  const json = { headers: { "content-type": "application/json" } };
  const verdict = {
    valid: false,
    definition: null,
    revision: null,
    issues: [{ code: "invalid_definition", message: "expected 1", path: ["version"] }],
  };
  const server = Deno.serve(
    { path: socketPath, onListen: () => listening.resolve() },
    async (request) => {
      await request.arrayBuffer();
      if (new URL(request.url).pathname === "/v1/health") {
        return new Response(envelope(HEALTH), json);
      }
      await sleep(SLOW_DAEMON_MS);
      return new Response(envelope(verdict), json);
    },
  );
  await listening.promise;
  return {
    socketPath,
    async cleanup() {
      await server.shutdown();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let partial = "";
  for await (const chunk of stream) {
    const text = partial + decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      onLine(text.slice(start, end));
      start = end + 1;
    }
    partial = text.slice(start);
  }
  if (partial.length > 0) onLine(partial);
}

/** The id of an answer: the SDK writes results as `…,"jsonrpc":"2.0","id":N}`; else parsed. */
function answerId(line: string): unknown {
  const match = /"jsonrpc":"2\.0","id":(\d+|"[^"]*")\}$/.exec(line);
  if (match) return match[1].startsWith('"') ? match[1].slice(1, -1) : Number(match[1]);
  try {
    const message: unknown = JSON.parse(line);
    return typeof message === "object" && message !== null ? Reflect.get(message, "id") : undefined;
  } catch {
    return undefined;
  }
}

function head(line: string): string {
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function toMiB(kiB: number): number {
  return Math.round(kiB / 102.4) / 10;
}
