/**
 * Token removal, third layer: the stdout scrubber (src/bridge/stdio.ts wires it into the
 * transport, src/transport/stdio_transport.ts applies it to every frame). Some text reaches
 * stdout without passing a tool's result: a host that names a tool after a credential gets
 * a JSON-RPC error quoting that name. The real `serve` process holds a lease token; the host
 * sends it back as a tool's name; not one 12-character window of it may come out.
 */
import assert from "node:assert/strict";
import { simulatedBridge } from "../support/simulated_bridge.ts";
import { REDACTED } from "../../src/custody/fragments.ts";

Deno.test("stdout scrubbing: a held token the host echoes back is masked in the frame it gets", async () => {
  const rig = await simulatedBridge({}, { serveArgs: ["--log-level", "debug"] });
  try {
    await rig.peer.initialize();
    const lease = await rig.ok("portreeve_lease_acquire", {
      claim: { project: "scrub", workspaceRoot: rig.workspace, component: "api" },
    });
    await rig.ok("portreeve_lease_abandon", {
      credentialHandle: lease.credentialHandle,
      reason: "startup-error",
    });
    const sent = rig.sim.requests.find((r) => r.path.endsWith("/abandon"))?.body as {
      leaseToken?: string;
    };
    const token = sent?.leaseToken ?? "";
    assert.ok(token.length >= 24, "the bridge held a token and sent it to the daemon");

    const answer = await rig.peer.request("tools/call", { name: token, arguments: {} });
    const error = answer.error as { message?: string } | undefined;
    assert.match(String(error?.message), /^Unknown tool "/, JSON.stringify(answer));
    assert.ok(String(error?.message).includes(REDACTED), "the name is masked, not dropped");
    const out = rig.peer.stdoutText();
    const err = rig.peer.stderrText();
    for (let i = 0; i + 12 <= token.length; i++) {
      const window = token.slice(i, i + 12);
      assert.ok(!out.includes(window), `stdout carries window ${i} of the token`);
      assert.ok(!err.includes(window), `stderr carries window ${i} of the token`);
    }
  } finally {
    await rig.close();
  }
});
