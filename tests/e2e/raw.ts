/**
 * A raw stdio peer for the real `serve` process: writes exact bytes, reads every stdout byte,
 * so tests can send what no SDK client would and check that stdout carries frames only.
 */
import { type BridgeOptions, spawnBridgeProcess } from "./harness.ts";

export interface RawBridge {
  process: Deno.ChildProcess;
  send(text: string | Uint8Array): Promise<void>;
  /** Resolves with the next response whose id is `id`. */
  response(id: string | number | null, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** All stdout bytes so far, decoded. */
  stdout(): string;
  stderr(): string;
  closeStdin(): Promise<void>;
  exited(): Promise<Deno.CommandStatus>;
}

export function spawnRaw(opts: BridgeOptions): RawBridge {
  const process = spawnBridgeProcess(opts);
  const writer = process.stdin.getWriter();
  const decoder = new TextDecoder();
  let out = "";
  let err = "";
  const waiters: (() => void)[] = [];
  const pump = async (stream: ReadableStream<Uint8Array>, onText: (t: string) => void) => {
    for await (const chunk of stream) {
      onText(decoder.decode(chunk, { stream: true }));
      waiters.splice(0).forEach((w) => w());
    }
  };
  const pumps = Promise.all([
    pump(process.stdout, (t) => out += t),
    pump(process.stderr, (t) => err += t),
  ]);
  const frames = () => out.split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l));
  return {
    process,
    send: async (data) => {
      await writer.write(typeof data === "string" ? new TextEncoder().encode(data) : data);
    },
    async response(id, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = frames().find((f) => f.id === id && ("result" in f || "error" in f));
        if (found) return found;
        if (Date.now() > deadline) {
          throw new Error(`no response for id ${id}; stdout: ${out.slice(-500)}`);
        }
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
    stdout: () => out,
    stderr: () => err,
    closeStdin: async () => {
      await writer.close().catch(() => {});
    },
    exited: async () => {
      const status = await process.status;
      await pumps;
      return status;
    },
  };
}

export const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "raw", version: "0" },
  },
}) + "\n" + JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n";

export function request(
  id: number | string,
  method: string,
  params?: Record<string, unknown>,
): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }) + "\n";
}

/** Every stdout line must be one JSON-RPC 2.0 message. */
export function assertFramesOnly(stdout: string): void {
  for (const line of stdout.split("\n")) {
    if (line === "") continue;
    const message = JSON.parse(line);
    if (message.jsonrpc !== "2.0") throw new Error(`not a JSON-RPC frame: ${line.slice(0, 200)}`);
  }
  if (stdout.length > 0 && !stdout.endsWith("\n")) throw new Error("stdout ends mid-frame");
}
