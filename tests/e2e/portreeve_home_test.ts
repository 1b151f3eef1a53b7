/**
 * PORTREEVE_HOME, as PortReeve honours it: a daemon started with only that variable listens at
 * `$PORTREEVE_HOME/portreeve.sock`. The real `serve` process, granted that socket and given only
 * the variable, finds it (its permission set lets it read the variable) and answers from it.
 */
import assert from "node:assert/strict";
import { call, startBridge, withSimulator } from "./harness.ts";

Deno.test("PORTREEVE_HOME: the confined bridge finds portreeve.sock there and says so", async () => {
  const env = await withSimulator();
  const bridge = await startBridge({
    socketPath: env.socketPath,
    // Empty counts as unset: PORTREEVE_HOME is all the bridge has to go on.
    env: { PORTREEVE_SOCKET: "", PORTREEVE_HOME: env.dir, XDG_STATE_HOME: "/nowhere" },
  });
  try {
    const diag = await call(bridge, "portreeve_diagnostics");
    const data = diag.envelope.data as { bridge: { socketPath: string; socketSource: string } };
    assert.equal(data.bridge.socketSource, "PORTREEVE_HOME");
    assert.equal(data.bridge.socketPath, `${env.dir}/portreeve.sock`);
    const health = await call(bridge, "portreeve_health");
    assert.equal(health.envelope.ok, true, JSON.stringify(health.envelope));
  } finally {
    await bridge.close();
    await env.cleanup();
  }
});
