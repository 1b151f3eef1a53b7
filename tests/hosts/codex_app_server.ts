/**
 * Codex's own connection check: `codex app-server` speaks JSON-RPC lines on stdio. The suite
 * initializes, starts a thread, lists MCP server status and calls one tool through Codex —
 * no model involved.
 */
import { isRecord } from "./fake_model.ts";

export interface AppServerCheck {
  /** Our server's entry in `mcpServerStatus/list`. */
  status: Record<string, unknown>;
  /** The result of `mcpServer/tool/call`. */
  toolCall: Record<string, unknown>;
  stderr: string;
}

export async function checkCodexAppServer(
  bin: string,
  options: {
    env: Record<string, string>;
    cwd: string;
    timeoutMs: number;
    config: string[];
    tool: string;
    args: Record<string, unknown>;
  },
): Promise<AppServerCheck> {
  const child = new Deno.Command(bin, {
    args: ["app-server", ...options.config],
    env: options.env,
    clearEnv: true,
    cwd: options.cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const decoder = new TextDecoder();
  let stderr = "";
  const stderrDone = (async () => {
    for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();
  const replies = new Map<number, PromiseWithResolvers<Record<string, unknown>>>();
  const stdoutDone = (async () => {
    let buffered = "";
    for await (const chunk of child.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line === "") continue;
        const message: unknown = JSON.parse(line);
        if (!isRecord(message) || typeof message.id !== "number") continue;
        if ("method" in message) continue; // a request from the server to us
        replies.get(message.id)?.resolve(message);
      }
    }
    for (const reply of replies.values()) {
      reply.reject(new Error("codex app-server closed its stdout (exited or timed out)"));
    }
  })();
  let nextId = 1;
  const send = async (message: Record<string, unknown>) => {
    await writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
  };
  const request = async (method: string, params: unknown): Promise<Record<string, unknown>> => {
    const id = nextId++;
    const reply = Promise.withResolvers<Record<string, unknown>>();
    replies.set(id, reply);
    await send({ id, method, params });
    const message = await reply.promise;
    if (!isRecord(message.result)) {
      throw new Error(`codex app-server ${method} failed: ${JSON.stringify(message.error)}`);
    }
    return message.result;
  };
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
  try {
    await request("initialize", {
      clientInfo: { name: "portreeve-mcp-hosts", title: null, version: "0.0.0" },
      capabilities: null,
    });
    await send({ method: "initialized" });
    const thread = await request("thread/start", { cwd: options.cwd });
    const threadId = isRecord(thread.thread) ? thread.thread.id : undefined;
    if (typeof threadId !== "string") throw new Error("codex app-server: thread/start gave no id");
    const toolCall = await request("mcpServer/tool/call", {
      threadId,
      server: "portreeve",
      tool: options.tool,
      arguments: options.args,
    });
    // The thread connects its servers in the background: ask again while it says "starting".
    let status: Record<string, unknown> | undefined;
    for (let attempt = 0; attempt < 20; attempt++) {
      const listed = await request("mcpServerStatus/list", { threadId });
      const entries = Array.isArray(listed.data) ? listed.data.filter(isRecord) : [];
      status = entries.find((entry) => entry.name === "portreeve");
      if (status === undefined) {
        throw new Error(`codex app-server lists no portreeve server: ${JSON.stringify(listed)}`);
      }
      if (status.runtimeStatus !== "starting") break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    if (status === undefined) throw new Error("codex app-server gave no status");
    return { status, toolCall, stderr };
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\nstderr: ${stderr}`);
  } finally {
    clearTimeout(timer);
    await writer.close().catch(() => {});
    try {
      child.kill("SIGTERM");
    } catch {
      // already exited
    }
    await child.status;
    await Promise.allSettled([stdoutDone, stderrDone]);
  }
}
