/**
 * Starts a host entry's exact command (its command, arguments and environment on top of this
 * process's own, as a host started from this terminal would) and speaks MCP to it over its
 * stdin and stdout, one JSON message a line, as the host would. Its stderr is kept (the last
 * few KiB) to show why it stopped.
 */
import { Client, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";
import type { Launch } from "../../profiles/entry_shape.ts";
import { SOFTWARE_VERSION } from "../../shared/options.ts";

type Started =
  | { ok: true; client: Client; stderr: () => string; close: () => Promise<void> }
  | { ok: false; reason: "gone" | "denied" | "failed"; message: string };

/** A stdio transport over a child process; `received` rejects when the child's output ends. */
class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reading: Promise<void> | undefined;

  constructor(private readonly child: Deno.ChildProcess) {
    this.#writer = child.stdin.getWriter();
  }

  start(): Promise<void> {
    this.#reading = this.#read().finally(() => this.onclose?.());
    return Promise.resolve();
  }

  async #read(): Promise<void> {
    let pending = "";
    const decoder = new TextDecoder();
    for await (const chunk of this.child.stdout) {
      pending += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = pending.indexOf("\n")) !== -1) {
        const line = pending.slice(0, newline).trim();
        pending = pending.slice(newline + 1);
        if (line === "") continue;
        try {
          this.onmessage?.(JSON.parse(line));
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        }
      }
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  }

  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    await this.#reading?.catch(() => {});
  }
}

/** Starts `launch` and completes MCP's initialize with it. */
export async function startEntry(launch: Launch): Promise<Started> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(launch.command, {
      args: launch.args,
      env: launch.env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { ok: false, reason: "gone", message: `${launch.command} does not exist` };
    }
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      return { ok: false, reason: "denied", message: error.message.split("\n")[0] };
    }
    return { ok: false, reason: "failed", message: String(error) };
  }
  let tail = "";
  const decoder = new TextDecoder();
  const draining = (async () => {
    for await (const chunk of child.stderr) {
      tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4096);
    }
  })();
  const transport = new ChildTransport(child);
  const client = new Client({ name: "portreeve-mcp-doctor", version: SOFTWARE_VERSION });
  const close = async () => {
    await client.close().catch(() => {});
    try {
      child.kill("SIGTERM");
    } catch {
      // It has exited already.
    }
    await child.status;
    await draining.catch(() => {});
  };
  try {
    await client.connect(transport);
  } catch (error) {
    await close();
    const said = tail.trim().split("\n").slice(-3).join(" / ");
    return {
      ok: false,
      reason: "failed",
      message: `${error instanceof Error ? error.message : String(error)}${
        said ? `; it said: ${said}` : ""
      }`,
    };
  }
  return { ok: true, client, stderr: () => tail, close };
}
