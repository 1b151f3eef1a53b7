// Shared helpers for simulator tests: a temp socket, a Unix-socket fetch, a POST client block.
import { type Simulator, type SimulatorOptions, startSimulator } from "../../src/simulator/mod.ts";

export interface Harness {
  sim: Simulator;
  dir: string;
  get(path: string, headers?: Record<string, string>): Promise<Reply>;
  post(path: string, body?: Record<string, unknown>, opts?: PostOptions): Promise<Reply>;
  raw(path: string, init: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export interface Reply {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
}

export interface PostOptions {
  capabilities?: string[];
  client?: unknown;
  headers?: Record<string, string>;
}

export const ORIGIN = { kind: "mcp", runId: "9fc922e7-eda8-4de2-bbfc-1c21c7f5cc11", label: "test" };

export function clientBlock(capabilities: string[] = []): Record<string, unknown> {
  return {
    softwareVersion: "0.1.0",
    protocol: { minimum: 1, maximum: 1 },
    requiredCapabilities: capabilities,
    origin: ORIGIN,
  };
}

export async function harness(opts: Partial<SimulatorOptions> = {}): Promise<Harness> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "portreeve-sim-" }));
  const socketPath = `${dir}/s.sock`;
  const sim = await startSimulator({ observeHost: false, ...opts, socketPath });
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: socketPath } });
  const raw = (path: string, init: RequestInit) =>
    fetch(`http://[100::]${path}`, { ...init, client });
  const read = async (res: Response): Promise<Reply> => {
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return {
    sim,
    dir,
    raw,
    get: async (path, headers = {}) =>
      read(await raw(path, { headers: { accept: "application/json", ...headers } })),
    post: async (path, body = {}, o = {}) =>
      read(
        await raw(path, {
          method: "POST",
          headers: { "content-type": "application/json", ...(o.headers ?? {}) },
          body: JSON.stringify({
            client: "client" in o ? o.client : clientBlock(o.capabilities),
            ...body,
          }),
        }),
      ),
    close: async () => {
      client.close();
      await sim.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
