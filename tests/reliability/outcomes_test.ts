/**
 * Verdicts and outcomes, through the real `serve` process. A mutation the daemon applied but
 * whose answer cannot be read (garbage, an HTML 500, an unknown error code, a body over 4 MiB,
 * a connection closed mid-answer) says `details.outcome: "unknown"`, that it may have been
 * applied, and which read tool settles it — and that read really shows the change. A read
 * under the same faults carries no outcome. After `diagnostics` saw an incompatible daemon
 * that is then upgraded and restarted, the very first call works.
 */
import assert from "node:assert/strict";
import { withSimulator } from "../e2e/harness.ts";
import { assertNoBridgeBug, envelopeOf, type Peer, spawnPeer } from "../support/raw_peer.ts";
import type { Fault } from "../../src/simulator/mod.ts";

const SPOILERS: Fault[] = [
  "non-json",
  "html-500",
  "unknown-code",
  "oversize-4mib",
  "close-mid-response",
];

async function data(peer: Peer, tool: string, args: Record<string, unknown> = {}) {
  const env = envelopeOf(await peer.tool(tool, args, 30_000));
  assert.equal(env.ok, true, `${tool}: ${JSON.stringify(env.error)}`);
  return env.data!;
}

Deno.test("unreadable answers to mutations say the outcome is unknown and name the read that settles it", async () => {
  const env = await withSimulator();
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-rel-out-" }));
  const peer = spawnPeer({ socketPath: env.socketPath });
  const { sim } = env;
  try {
    await peer.initialize();
    for (const fault of SPOILERS) {
      await data(peer, "portreeve_settings_get"); // a fresh, positive verdict
      sim.control.setFault(fault, { apply: true });
      const claim = { project: "outcomes", workspaceRoot: workspace, component: fault };
      const before = sim.requests.filter((r) => r.path === "/v1/leases/acquire").length;
      const mutation = envelopeOf(await peer.tool("portreeve_lease_acquire", { claim }, 30_000));
      const read = envelopeOf(await peer.tool("portreeve_claims_list", {}, 30_000));
      sim.control.setFault("none");

      assert.equal(mutation.ok, false, fault);
      const error = mutation.error!;
      assert.equal(error.details.outcome, "unknown", `${fault}: ${JSON.stringify(error)}`);
      assert.equal(error.details.checkWith, "portreeve_ports_list", fault);
      assert.match(error.message, /may or may not have been applied/, fault);
      assert.match(error.nextStep, /before repeating it, call portreeve_ports_list/, fault);
      assert.equal(
        sim.requests.filter((r) => r.path === "/v1/leases/acquire").length - before,
        1,
        `${fault}: the mutation was sent once`,
      );
      assert.equal(read.ok, false, `${fault}: the read fails too`);
      assert.equal(read.error!.details.outcome, undefined, `${fault}: a read has no outcome`);

      // The named read shows what happened: the daemon did take the lease.
      const listed = await data(peer, "portreeve_ports_list", {
        project: "outcomes",
        component: fault,
      });
      const items = listed.items as { lease: unknown }[];
      assert.equal(items.length, 1, `${fault}: ${JSON.stringify(listed)}`);
      assert.notEqual(items[0].lease, null, `${fault}: the lease is pending`);
      console.log(
        `${fault}: ${error.code}, outcome unknown, check with ${error.details.checkWith}`,
      );
    }
    assert.deepEqual(peer.violations, [], "stdout carried frames only");
    assertNoBridgeBug(peer, "the unreadable answers");
  } finally {
    await peer.closeStdin();
    await peer.exited();
    await env.cleanup();
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("after diagnostics saw an incompatible daemon, upgrade-then-restart makes the first call work", async () => {
  const env = await withSimulator();
  const peer = spawnPeer({ socketPath: env.socketPath });
  const { sim } = env;
  try {
    await peer.initialize();
    await data(peer, "portreeve_ports_list");
    sim.control.setFault("incompatible");
    await sim.restart();
    const seen = await data(peer, "portreeve_diagnostics");
    assert.equal((seen.daemon as { compatible: boolean }).compatible, false);
    const refused = envelopeOf(await peer.tool("portreeve_ports_list"));
    assert.equal(refused.error?.code, "portreeve_incompatible");

    // The user upgrades and restarts the daemon, as the error says.
    sim.control.setFault("none");
    await sim.restart();
    await data(peer, "portreeve_ports_list");

    // Again with diagnostics as the last word before the restart.
    sim.control.setFault("incompatible");
    await data(peer, "portreeve_diagnostics");
    sim.control.setFault("none");
    await sim.restart();
    await data(peer, "portreeve_lease_acquire", {
      claim: { project: "verdict", workspaceRoot: "/tmp", component: "api" },
    });
  } finally {
    await peer.closeStdin();
    await peer.exited();
    await env.cleanup();
  }
});
