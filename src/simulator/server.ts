// HTTP/JSON over a Unix socket: envelopes, request IDs, client-block negotiation, faults.
import { Ctx, type SimCore } from "./core.ts";
import { ProtocolError, schemaError } from "./errors.ts";
import type { Router } from "./router.ts";
import { postEnvelopeSchema, uuidSchema } from "./schemas.ts";
import { uuid } from "./util.ts";
import { leakIntoData, leakIntoError, secretsIn } from "./hostile.ts";
import type { Pacing } from "./pacing.ts";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  /** The HTTP status it was answered with, once answered (a broken answer has none). */
  status?: number;
}

const JSON_TYPE = "application/json;charset=utf-8";

export interface RunningServer {
  close(): Promise<void>;
}

export function startServer(
  core: SimCore,
  router: Router,
  socketPath: string,
  requests: RecordedRequest[],
  pacing: Pacing,
  /** Told after each request is recorded, before it is answered. */
  recorded: () => void = () => {},
): Promise<RunningServer> {
  removeStaleSocket(socketPath);
  const hung = new Set<() => void>();

  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const text = await request.text();
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key.toLowerCase()] = value;
    });
    const entry: RecordedRequest = {
      method: request.method,
      path: url.pathname + url.search,
      headers,
      body: parseOrNull(text),
    };
    requests.push(entry);
    recorded();

    const fault = core.fault;
    if (fault === "hang") {
      await new Promise<void>((resolve) => {
        const release = () => {
          hung.delete(release);
          resolve();
        };
        hung.add(release);
        request.signal.addEventListener("abort", release, { once: true });
      });
      return new Response(null, { status: 503 });
    }
    const requestIdHeader = request.headers.get("x-portreeve-request-id") ?? "";
    const requestId = uuidSchema.safeParse(requestIdHeader).success ? requestIdHeader : uuid();
    const spoilt = spoiltAnswer(fault, url.pathname, requestId);
    const changesState = router.changesState(request.method, url.pathname);
    const startedAt = core.clock.now();
    const served = () =>
      pacing.run(
        changesState,
        () => dispatch(core, router, request.method, url, text, startedAt),
      );
    if (spoilt) {
      if (core.applyBeforeFault) await served().catch(() => {});
      return spoilt();
    }

    let status = 200;
    let payload: Record<string, unknown>;
    try {
      const data = await served();
      payload = { protocolVersion: 1, requestId, data };
    } catch (error) {
      const failure = error instanceof ProtocolError ? error : new ProtocolError(
        "internal",
        "The simulated daemon hit an unexpected error.",
        {},
        { status: 500 },
      );
      if (!(error instanceof ProtocolError) && !(error instanceof SyntaxError)) {
        core.log("error", "server", `Unexpected failure: ${String(error)}`);
      }
      status = failure.status;
      payload = {
        protocolVersion: 1,
        requestId,
        error: {
          code: failure.code,
          message: failure.message,
          retryable: failure.retryable,
          details: failure.details,
        },
      };
    }
    if (core.hostile) {
      const secrets = secretsIn(parseOrNull(text));
      if (payload.error) {
        leakIntoError(
          payload.error as { message: string; details: Record<string, unknown> },
          secrets,
        );
      } else {
        // A copy: handlers may answer with the simulator's own state objects.
        payload.data = JSON.parse(JSON.stringify(payload.data ?? null));
        leakIntoData(payload.data, secretsIn(payload.data, secrets));
      }
    }
    entry.status = status;
    if (fault === "wrong-envelope") payload.protocolVersion = 2;
    if (fault === "oversize") {
      // Valid JSON envelope that is far over any sane client limit (2 MiB + a bit).
      payload.padding = "x".repeat(2 * 1024 * 1024 + 1024);
    }
    return new Response(JSON.stringify(payload), {
      status,
      headers: { "content-type": JSON_TYPE },
    });
  };

  return new Promise((resolve, reject) => {
    let server: Deno.HttpServer<Deno.UnixAddr>;
    try {
      server = Deno.serve({
        path: socketPath,
        onListen: () => {
          try {
            Deno.chmodSync(socketPath, 0o600);
          } catch {
            // Best effort: some file systems reject chmod on sockets.
          }
          resolve({
            close: async () => {
              for (const release of [...hung]) release();
              pacing.close();
              await server.shutdown();
              try {
                Deno.removeSync(socketPath);
              } catch {
                // Already gone.
              }
            },
          });
        },
        onError: () =>
          new Response(JSON.stringify({ error: "unexpected" }), {
            status: 500,
            headers: { "content-type": JSON_TYPE },
          }),
      }, handler);
    } catch (error) {
      reject(error);
    }
  });
}

async function dispatch(
  core: SimCore,
  router: Router,
  method: string,
  url: URL,
  text: string,
  startedAt: number,
): Promise<unknown> {
  if (method !== "GET" && method !== "POST") throw unknownRoute(method, url.pathname);
  let body: Record<string, unknown> = {};
  let origin = null;
  if (method === "POST") {
    // Invalid JSON (even an empty body) is an unexpected error upstream: 500 internal.
    const parsed: unknown = JSON.parse(text);
    const envelope = postEnvelopeSchema.safeParse(parsed);
    if (!envelope.success) throw schemaError(envelope.error);
    body = envelope.data;
    origin = envelope.data.client.origin ?? null;
    const match = router.match(method, url.pathname);
    if (!match) throw unknownRoute(method, url.pathname);
    // The daemon validates the route's body schema before it negotiates the protocol.
    const issues = match.body.flatMap((schema) => {
      const result = schema.safeParse(parsed);
      return result.success ? [] : result.error.issues;
    });
    if (issues.length > 0) throw schemaError(issues);
    negotiate(core, envelope.data.client);
    const ctx = new Ctx(core, {
      origin,
      params: match.params,
      query: url.searchParams,
      body,
      startedAt,
    });
    return await match.handler(ctx);
  }
  const match = router.match(method, url.pathname);
  if (!match) throw unknownRoute(method, url.pathname);
  const ctx = new Ctx(core, { origin, params: match.params, query: url.searchParams, body });
  return await match.handler(ctx);
}

function unknownRoute(method: string, path: string): ProtocolError {
  return new ProtocolError("not_found", `No PortReeve endpoint matches ${method} ${path}.`);
}

/** Protocol overlap plus the static capability list (docker-evidence-v1 is never in it). */
function negotiate(
  core: SimCore,
  client: { protocol: { minimum: number; maximum: number }; requiredCapabilities: string[] },
): void {
  const server = core.advertisedProtocol();
  const overlap = client.protocol.minimum <= server.maximum &&
    client.protocol.maximum >= server.minimum;
  const missing = client.requiredCapabilities.filter((c) =>
    !(core.capabilities as readonly string[]).includes(c) || c === "docker-evidence-v1"
  );
  if (core.fault === "incompatible" || !overlap || missing.length > 0) {
    throw new ProtocolError(
      "incompatible_protocol",
      overlap && core.fault !== "incompatible"
        ? `The daemon lacks required capabilities: ${missing.join(", ")}.`
        : "The client and daemon share no protocol version.",
      {
        compatible: false,
        negotiatedProtocol: overlap && core.fault !== "incompatible"
          ? Math.min(client.protocol.maximum, server.maximum)
          : null,
        missingCapabilities: missing,
      },
    );
  }
}

function parseOrNull(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Sends a status line and half a body, then breaks the stream so the connection dies. */
/** The answer a spoiling fault sends instead of the real one, or undefined. */
function spoiltAnswer(
  fault: string,
  pathname: string,
  requestId: string,
): (() => Response) | undefined {
  const json = (body: unknown, status = 200) => () =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": JSON_TYPE } });
  switch (fault) {
    case "non-json":
      return () =>
        new Response("<<simulated garbage: this is not JSON>>", {
          status: 200,
          headers: { "content-type": "text/plain;charset=utf-8" },
        });
    case "close-mid-response":
      return brokenResponse;
    case "html-500":
      return () =>
        new Response("<html><body><h1>500 Internal Server Error</h1></body></html>", {
          status: 500,
          headers: { "content-type": "text/html" },
        });
    case "unknown-code":
      return json({
        protocolVersion: 1,
        requestId,
        error: { code: "exploded", message: "simulated unknown code", retryable: false },
      }, 500);
    case "internal":
      return json({
        protocolVersion: 1,
        requestId,
        error: {
          code: "internal",
          message: "simulated internal failure: database or disk is full",
          retryable: false,
          details: {},
        },
      }, 500);
    case "oversize-4mib":
      return json({ protocolVersion: 1, requestId, data: { padding: "x".repeat(4_200_000) } });
    case "wrong-shape":
      // Health stays right, so the bridge's compatibility gate lets the call through.
      return pathname === "/v1/health"
        ? undefined
        : json({ protocolVersion: 1, requestId, data: null });
    default:
      return undefined;
  }
}

function brokenResponse(): Response {
  let step = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (step++ === 0) {
        controller.enqueue(new TextEncoder().encode('{"protocolVersion":1,"requestId":"'));
      } else {
        controller.error(new Error("simulated connection drop"));
      }
    },
  });
  return new Response(stream, { status: 200, headers: { "content-type": JSON_TYPE } });
}

function removeStaleSocket(path: string): void {
  try {
    const info = Deno.lstatSync(path);
    if (info.isSocket) Deno.removeSync(path);
  } catch {
    // Nothing there.
  }
}
