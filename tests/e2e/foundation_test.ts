/**
 * The bridge's first steps in each era, over real stdio: start-up and tools/list reach no daemon
 * and say the list may not be cached beyond this session (ttlMs 0, cacheScope private); then
 * health, settings and diagnostics answer from the simulator.
 */
import assert from "node:assert/strict";
import { call, type Era, startBridge, withSimulator } from "./harness.ts";
import { Catalogue } from "../../src/catalogue/catalogue.ts";

const ERAS: Era[] = ["legacy", "auto", "modern"];

for (const era of ERAS) {
  Deno.test(`foundation (${era}): tools/list without daemon traffic, then health and settings against the simulator`, async () => {
    const env = await withSimulator();
    const bridge = await startBridge({
      socketPath: env.socketPath,
      era,
      serveArgs: ["--label", "e2e"],
    });
    try {
      const list = await bridge.client.listTools();
      const names = list.tools.map((t) => t.name);
      assert.ok(names.includes("portreeve_health"));
      // The whole catalogue, in its registration order.
      assert.deepEqual(names, new Catalogue("full").listing().map((t) => t.name));
      const frame = bridge.stdoutFrames().map((f) => JSON.parse(f)).find((f) => f.result?.tools);
      assert.equal(frame.result.ttlMs, 0, era);
      assert.equal(frame.result.cacheScope, "private", era);
      assert.equal(env.sim.requests.length, 0, "no daemon traffic before the first tool call");

      const health = await call(bridge, "portreeve_health");
      assert.equal(health.isError, false);
      assert.equal(health.envelope.ok, true);
      assert.equal(health.envelope.data?.softwareVersion, "0.1.0");
      // The text is the same JSON a host reads from structuredContent (call() checks that).
      assert.equal(JSON.parse(health.text).data.softwareVersion, "0.1.0");

      const settings = await call(bridge, "portreeve_settings_get");
      assert.equal(settings.envelope.ok, true);
      assert.equal(settings.envelope.data?.leaseTtlMilliseconds, 15000);

      const diag = await call(bridge, "portreeve_diagnostics");
      const data = diag.envelope.data as {
        bridge: { label: string };
        daemon: { compatible: boolean };
      };
      assert.equal(data.bridge.label, "e2e");
      assert.equal(data.daemon.compatible, true);
    } finally {
      await bridge.close();
      await env.cleanup();
    }
  });
}
