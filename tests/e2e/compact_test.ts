/**
 * Compact results over real stdio: the default form expands, from the result alone, to what
 * `detail: "full"` returns, both pass the SDK client's output-schema check, and a bad
 * `detail` is refused.
 */
import assert from "node:assert/strict";
import { call, startBridge, withSimulator } from "./harness.ts";
import { seedClaim, seeder } from "./seed.ts";
import { expandResult } from "../support/expand.ts";

Deno.test("compact by default, whole records with detail full", async () => {
  const env = await withSimulator();
  const seed = seeder(env.socketPath);
  const workspace = await Deno.realPath(env.dir);
  const bridge = await startBridge({ socketPath: env.socketPath });
  try {
    const lease = await seedClaim(seed, "web", workspace, "api", 18480);
    env.sim.control.addListener(lease.port as number, 4242, { ppid: 1, command: "node" });
    for (
      const [tool, args] of [
        ["portreeve_port_inspect", { port: lease.port }],
        ["portreeve_ports_list", { listening: true }],
        ["portreeve_claims_list", {}],
      ] as const
    ) {
      const compact = await call(bridge, tool, args);
      const full = await call(bridge, tool, { ...args, detail: "full" });
      assert.equal(compact.isError, false, compact.text);
      assert.equal(full.isError, tool === "portreeve_claims_list", full.text);
      if (full.isError) {
        assert.equal(full.envelope.error?.code, "portreeve_invalid_input");
        continue;
      }
      assert.deepEqual(
        expandResult(tool, compact.envelope.data!),
        full.envelope.data,
        tool,
      );
      assert.ok(JSON.stringify(compact.envelope).length < JSON.stringify(full.envelope).length);
    }
    // The listener's process is stated once: inline, or in `processes` where that is shorter.
    const inspected = await call(bridge, "portreeve_port_inspect", { port: lease.port });
    const stated = JSON.stringify(inspected.envelope.data).split('"workingDirectory"').length - 1;
    assert.equal(stated, 1);
    const refused = await call(bridge, "portreeve_ports_list", { detail: "compact" });
    assert.equal(refused.isError, true);
    assert.equal(refused.envelope.error?.code, "portreeve_invalid_input");
  } finally {
    seed.close();
    await bridge.close();
    await env.cleanup();
  }
});
