// Demo seed: a couple of claims and one applied stack so a demo has something to show.
// It drives the simulator through its own HTTP routes, exactly like a client would.
const CLIENT = {
  softwareVersion: "0.1.0",
  protocol: { minimum: 1, maximum: 1 },
  requiredCapabilities: [],
  origin: { kind: "library", label: "simulator-seed" },
};

export async function seedDemo(socketPath: string, demoRoot: string): Promise<void> {
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: socketPath } });
  const post = async (path: string, body: Record<string, unknown>) => {
    const res = await fetch(`http://portreeve.invalid${path}`, {
      method: "POST",
      client,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client: CLIENT, ...body }),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`seed step ${path} failed: ${JSON.stringify(json.error)}`);
    return json.data;
  };
  try {
    const app = `${demoRoot}/demo-app`;
    const stackRoot = `${demoRoot}/demo-stack`;
    await Deno.mkdir(app, { recursive: true });
    await Deno.mkdir(stackRoot, { recursive: true });
    for (const [component, preferredPort] of [["api", 18080], ["worker", 18090]] as const) {
      const lease = await post("/v1/leases/acquire", {
        claim: {
          project: "demo-app",
          workspaceRoot: app,
          component,
          endpoint: "http",
          transport: "tcp",
        },
        allocation: { mode: "sticky", replacementPolicy: "never", preferredPort },
      });
      await post(`/v1/leases/${lease.leaseId}/abandon`, {
        leaseToken: lease.leaseToken,
        reason: "client-cancelled",
      });
    }
    const applied = await post("/v1/stacks/apply", {
      stackRoot,
      definition: {
        version: 1,
        project: "demo-stack",
        components: {
          api: { endpoints: { http: { allocation: { preferredPort: 18180 } } } },
          web: {
            endpoints: { http: { allocation: { preferredPort: 18181 } } },
            dependencies: { backend: { component: "api", endpoint: "http" } },
          },
        },
      },
    });
    await post(`/v1/stacks/${applied.stack.id}/prepare`, {});
  } finally {
    client.close();
  }
}
