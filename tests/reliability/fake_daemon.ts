/**
 * A tiny fake daemon on a real Unix socket, for the faults the simulator cannot produce:
 * bodies over the client's 4 MiB bound (declared or streamed), answers that arrive after the
 * caller gave up, and observing that an aborted request really was aborted on the wire.
 * It answers /v1/health as a compatible protocol-1 daemon; every other route is `route()`.
 */
import { STATIC_CAPABILITIES } from "../../src/simulator/schemas.ts";

export interface FakeRequest {
  method: string;
  path: string;
  body: unknown;
  /** Set when the client dropped the request before we answered. */
  aborted: boolean;
}

export type FakeRoute = (request: Request, record: FakeRequest) => Promise<Response> | Response;

export interface FakeDaemon {
  socketPath: string;
  requests: FakeRequest[];
  route: FakeRoute;
  close(): Promise<void>;
}

export const HEALTH = {
  softwareVersion: "0.0.0-fake",
  protocol: { minimum: 1, maximum: 1 },
  capabilities: [...STATIC_CAPABILITIES],
  pid: 1,
  mode: "fake",
};

/** Marks `record` aborted if the client drops `request` before `answered` is set. */
export function watchAbort(request: Request, record: FakeRequest): { answered: boolean } {
  const state = { answered: false };
  request.signal.addEventListener("abort", () => {
    if (!state.answered) record.aborted = true;
  }, { once: true });
  return state;
}

export function envelope(data: unknown): string {
  return JSON.stringify({ protocolVersion: 1, requestId: crypto.randomUUID(), data });
}

export async function startFakeDaemon(socketPath: string, route: FakeRoute): Promise<FakeDaemon> {
  const requests: FakeRequest[] = [];
  const fake: FakeDaemon = { socketPath, requests, route, close: () => Promise.resolve() };
  const listening = Promise.withResolvers<void>();
  const server = Deno.serve(
    { path: socketPath, onListen: () => listening.resolve() },
    async (request) => {
      const url = new URL(request.url);
      const text = await request.text();
      const record: FakeRequest = {
        method: request.method,
        path: url.pathname + url.search,
        body: text ? JSON.parse(text) : null,
        aborted: false,
      };
      requests.push(record);
      if (url.pathname === "/v1/health") {
        return new Response(envelope(HEALTH), { headers: { "content-type": "application/json" } });
      }
      return await fake.route(request, record);
    },
  );
  await listening.promise;
  fake.close = async () => {
    await server.shutdown();
    await Deno.remove(socketPath).catch(() => {});
  };
  return fake;
}
