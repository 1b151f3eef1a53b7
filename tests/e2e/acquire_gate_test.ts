/**
 * Reclaiming through lease_acquire is gated, end to end: the real `serve` process with its
 * real flags over real stdio, the simulator on a real Unix socket observing the machine, and
 * a real listener process on a real port holding a confirmed run. Declined: the process
 * lives and no acquire reached the daemon. Approved: the process is signalled (SIGTERM) and
 * the lease acquired. A host that cannot ask: refused, not one request sent. And issue 20's
 * attack: a declined port_reclaim_execute, then lease_acquire with the claim's identity and
 * force-after-grace, in the full toolset and under `--toolset coordinate --approval required`.
 */
import assert from "node:assert/strict";
import { acquireGateCases, acquires, type Data, withBridge, world } from "./acquire_gate_cases.ts";
import { DECLINE, failsWith, person, succeeds } from "./receipt_steps.ts";

acquireGateCases("legacy");

Deno.test("acquire gate: the attack under --toolset coordinate --approval required", async () => {
  const serveArgs = ["--toolset", "coordinate", "--approval", "required"];
  const answers = person(DECLINE);
  await world(async (env, running) => {
    await withBridge(env, { serveArgs, answers }, async (bridge) => {
      // Any agent reads the claim's identity from claims_list.
      const { data } = await succeeds(bridge, "portreeve_claims_list", {
        workspaceRoot: env.dir,
      });
      const [listed] = data.items as { identity: Data }[];
      const claim = {
        project: listed.identity.project,
        workspaceRoot: listed.identity.workspaceRoot,
        component: listed.identity.component,
      };
      await failsWith(bridge, "portreeve_lease_acquire", {
        claim,
        allocation: { replacementPolicy: "force-after-grace" },
      }, "portreeve_approval_declined");
      assert.equal(answers.questions.length, 1);
      assert.equal(acquires(env), 1, "only the set-up acquire reached the daemon");
      assert.ok(running.process.alive());
    });
    // The same bridge flags with a host that cannot ask: refused before anything is sent.
    await withBridge(env, { serveArgs }, async (bridge) => {
      const before = env.sim.requests.length;
      await failsWith(bridge, "portreeve_lease_acquire", {
        claim: running.claim,
        allocation: { replacementPolicy: "force-after-grace" },
      }, "portreeve_approval_unavailable");
      assert.equal(env.sim.requests.length, before);
      assert.ok(running.process.alive());
    });
  });
});
