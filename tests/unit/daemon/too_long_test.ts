/**
 * A request too long to send is the caller's input error, never an unreachable daemon or an
 * unreadable answer: a URL longer than this client can build is refused before anything is
 * sent, and a daemon's 413, 414 or 431 (refused before any route saw it) names the longest
 * query field, or the body, and leaves no unknown outcome behind.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { DaemonClient } from "../../../src/daemon/client.ts";
import { ApprovalGate } from "../../../src/daemon/gate.ts";
import { MAX_URL_CHARS, URL_PREFIX } from "../../../src/daemon/http.ts";
import { BridgeError } from "../../../src/shared/errors.ts";
import { envelope, HEALTH } from "../../reliability/fake_daemon.ts";
import { get, post } from "../../../src/daemon/routes.ts";
import { coordinates } from "../../../src/daemon/effects.ts";

const PORTS = get("/v1/ports", z.unknown());
const APPLY = post("/v1/stacks/apply", z.unknown(), coordinates("a stand-in mutation"));

async function daemon(answer: (url: URL) => Response) {
  const dir = await Deno.makeTempDir();
  const socketPath = `${dir}/d.sock`;
  const seen: string[] = [];
  const listening = Promise.withResolvers<void>();
  const server = Deno.serve(
    { path: socketPath, onListen: () => listening.resolve() },
    (request) => {
      const url = new URL(request.url);
      if (url.pathname === "/v1/health") return new Response(envelope(HEALTH));
      seen.push(url.pathname);
      return answer(url);
    },
  );
  await listening.promise;
  const client = new DaemonClient({
    socketPath,
    runId: crypto.randomUUID(),
    gate: new ApprovalGate(),
  });
  return {
    client,
    seen,
    async done() {
      client.close();
      await server.shutdown();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function refusal(promise: Promise<unknown>): Promise<BridgeError> {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof BridgeError, String(error));
  return error;
}

for (const status of [414, 431]) {
  Deno.test(`HTTP ${status}: portreeve_invalid_input naming the longest query field`, async () => {
    const d = await daemon(() => new Response("Request Header Fields Too Large", { status }));
    try {
      const error = await refusal(
        d.client.request(PORTS, { query: { project: "web", workspace: "/w/" + "x".repeat(500) } }),
      );
      assert.equal(error.code, "portreeve_invalid_input");
      assert.equal(error.retryable, false);
      assert.deepEqual(error.details, { field: "workspace", length: 503 });
      assert.match(error.message, new RegExp(`HTTP ${status}.*workspace \\(503 characters\\)`));
    } finally {
      await d.done();
    }
  });
}

Deno.test("HTTP 413 to a mutation: invalid_input naming the body, no unknown outcome", async () => {
  const d = await daemon(() => new Response("", { status: 413 }));
  try {
    const error = await refusal(
      d.client.request(APPLY, { body: { definition: { pad: "x".repeat(5_000) } } }),
    );
    assert.equal(error.code, "portreeve_invalid_input");
    assert.match(error.message, /HTTP 413.*the request body \(\d+ characters\)/);
    assert.equal(error.details.outcome, undefined, "refused before any route: nothing done");
  } finally {
    await d.done();
  }
});

/**
 * A bare HTTP/1.1 daemon on a Unix socket that reads any request line (Deno.serve refuses
 * long ones itself) and answers every request with `body`, recording each request line.
 */
async function rawDaemon(body: (target: string) => string) {
  const dir = await Deno.makeTempDir();
  const socketPath = `${dir}/d.sock`;
  const listener = Deno.listen({ transport: "unix", path: socketPath });
  const targets: string[] = [];
  const serve = async (conn: Deno.Conn) => {
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(256 * 1024);
    let head = "";
    try {
      while (true) {
        const n = await conn.read(buffer);
        if (n === null) return;
        head += decoder.decode(buffer.subarray(0, n), { stream: true });
        let end: number;
        while ((end = head.indexOf("\r\n\r\n")) !== -1) {
          // Through the unix "proxy" the request line may carry the absolute URL.
          const target = head.slice(0, head.indexOf("\r\n")).split(" ")[1]
            .replace(URL_PREFIX, "");
          head = head.slice(end + 4);
          targets.push(target);
          const text = new TextEncoder().encode(body(target));
          await conn.write(new TextEncoder().encode(
            `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${text.length}\r\n\r\n`,
          ));
          await conn.write(text);
        }
      }
    } catch {
      // The client closed the connection: nothing more to answer.
    } finally {
      conn.close();
    }
  };
  const accepting = (async () => {
    for await (const conn of listener) serve(conn);
  })().catch(() => {});
  const client = new DaemonClient({
    socketPath,
    runId: crypto.randomUUID(),
    gate: new ApprovalGate(),
  });
  return {
    client,
    targets,
    async done() {
      client.close();
      listener.close();
      await accepting;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("a URL longer than this client can build is refused unsent, naming the field", async () => {
  const d = await rawDaemon((target) => target === "/v1/health" ? envelope(HEALTH) : envelope([]));
  try {
    const room = MAX_URL_CHARS - URL_PREFIX.length - "/v1/ports?project=".length;
    // Exactly the longest URL the client builds goes; one character more is refused, unsent.
    assert.deepEqual(await d.client.request(PORTS, { query: { project: "p".repeat(room) } }), []);
    assert.equal(URL_PREFIX.length + d.targets.at(-1)!.length, MAX_URL_CHARS);
    const error = await refusal(
      d.client.request(PORTS, { query: { project: "p".repeat(room + 1) } }),
    );
    assert.equal(error.code, "portreeve_invalid_input");
    assert.deepEqual(error.details, { field: "project", length: room + 1 });
    assert.equal(d.targets.length, 2, "health and the first request only");
  } finally {
    await d.done();
  }
});
