/**
 * A loopback model API whose every answer a function decides from the request in hand: the
 * measurements of deferred paths (Claude Code's ToolSearch, Codex's tool_search and code mode)
 * need answers that depend on what the host has shown so far. Every request is kept.
 */
import { isRecord } from "./fake_model.ts";

export interface ScriptedRequest {
  path: string;
  body: unknown;
}

/** Returns the answer to one request, or null for the host's own default (`fallback`). */
export type Script = (request: ScriptedRequest, seen: readonly ScriptedRequest[]) =>
  | Response
  | null
  | Promise<Response | null>;

export interface ScriptedModel {
  url: string;
  requests: ScriptedRequest[];
  close(): Promise<void>;
}

export function startScriptedModel(
  script: Script,
  fallback: (request: ScriptedRequest) => Response,
): ScriptedModel {
  const requests: ScriptedRequest[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const text = await req.text();
    let body: unknown = null;
    try {
      body = text === "" ? null : JSON.parse(text);
    } catch {
      return new Response("not JSON", { status: 400 });
    }
    const request = { path: new URL(req.url).pathname, body };
    requests.push(request);
    return await script(request, requests) ?? fallback(request);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    close: () => server.shutdown(),
  };
}

/** A request's JSON as one string, for finding text wherever the host put it. */
export function bodyText(request: ScriptedRequest): string {
  return JSON.stringify(request.body);
}

export function field(value: unknown, key: string): unknown {
  return isRecord(value) ? value[key] : undefined;
}
