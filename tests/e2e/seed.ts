/** Seeds simulator state through its own HTTP routes, like any daemon client would. */
const CLIENT = {
  softwareVersion: "0.1.0",
  protocol: { minimum: 1, maximum: 1 },
  requiredCapabilities: [],
  origin: { kind: "library", label: "e2e-seed" },
};

export interface Seeder {
  post(path: string, body?: Record<string, unknown>): Promise<Record<string, unknown>>;
  get(path: string): Promise<unknown>;
  close(): void;
}

export function seeder(socketPath: string): Seeder {
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: socketPath } });
  const send = async (path: string, init: RequestInit) => {
    const res = await fetch(`http://[100::]${path}`, { ...init, client });
    const json = await res.json();
    if (!res.ok) throw new Error(`seed ${path}: ${JSON.stringify(json.error)}`);
    return json.data;
  };
  return {
    post: (path, body = {}) =>
      send(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client: CLIENT, ...body }),
      }),
    get: (path) => send(path, {}),
    close: () => client.close(),
  };
}

/** A claim with an assigned port: acquire, then abandon (the sticky claim stays). */
export async function seedClaim(
  seed: Seeder,
  project: string,
  workspaceRoot: string,
  component: string,
  preferredPort?: number,
): Promise<Record<string, unknown>> {
  const lease = await seed.post("/v1/leases/acquire", {
    claim: { project, workspaceRoot, component, endpoint: "http", transport: "tcp" },
    allocation: {
      mode: "sticky",
      replacementPolicy: "never",
      ...(preferredPort ? { preferredPort } : {}),
    },
  });
  await seed.post(`/v1/leases/${lease.leaseId}/abandon`, {
    leaseToken: lease.leaseToken,
    reason: "client-cancelled",
  });
  return lease;
}

export const TWO_COMPONENT_STACK = {
  version: 1,
  project: "shop",
  components: {
    api: { endpoints: { http: {} } },
    web: {
      endpoints: { http: {} },
      dependencies: { backend: { component: "api", endpoint: "http" } },
    },
  },
};
