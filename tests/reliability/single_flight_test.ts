/**
 * Single-flight and conflicts, through the real `serve` process: 32 identical calls written at
 * once (acquire, begin, launcher begin, and every settle: lease confirm / abandon, endpoint
 * confirm / skip / abandon, launcher complete) reach the simulator as ONE request each; all 32
 * get the same result, exactly one with `changed: true`. A repeat of acquire or begin with
 * other arguments while the target is held is `portreeve_conflict` naming how to proceed, and
 * sends nothing.
 */
import assert from "node:assert/strict";
import { envelopeOf, type Peer, type ToolResult } from "../support/raw_peer.ts";
import { simulatedBridge, THREE_COMPONENT_STACK } from "../support/simulated_bridge.ts";
import { reportFigure } from "../support/reliability_figures.ts";

type Data = Record<string, unknown>;
const WAYS = 32;

const STACK = { ...THREE_COMPONENT_STACK, project: "flight" };

/** Writes `WAYS` identical tools/call frames before reading any answer. */
async function burst(peer: Peer, name: string, args: Data): Promise<ToolResult[]> {
  const ids: number[] = [];
  for (let i = 0; i < WAYS; i++) ids.push(await peer.post("tools/call", { name, arguments: args }));
  return await Promise.all(ids.map(async (id) => {
    const m = await peer.response(id, 30_000);
    assert.ok("result" in m, `${name}: JSON-RPC error ${JSON.stringify(m.error)}`);
    return m.result as ToolResult;
  }));
}

/** All succeeded with one result; exactly one reports the change. */
function shared(name: string, results: ToolResult[]): Data {
  const envelopes = results.map(envelopeOf);
  for (const e of envelopes) assert.equal(e.ok, true, `${name}: ${JSON.stringify(e.error)}`);
  const changed = envelopes.filter((e) => e.data!.changed === true).length;
  assert.equal(changed, 1, `${name}: ${changed} of ${WAYS} said changed`);
  const strip = (d: Data) => JSON.stringify({ ...d, changed: undefined });
  const first = strip(envelopes[0].data!);
  for (const e of envelopes) assert.equal(strip(e.data!), first, `${name}: results differ`);
  return envelopes.find((e) => e.data!.changed === true)!.data!;
}

Deno.test(`single flight: ${WAYS} identical calls send one daemon request; other arguments conflict`, async (t) => {
  const rig = await simulatedBridge({ settings: { leaseTtlMilliseconds: 60_000 } });
  const { sim, seed, workspace, stackRoot, peer } = rig;
  const sent = (suffix: string) => sim.requests.filter((r) => r.path.endsWith(suffix)).length;
  const counts: Record<string, number> = {};
  /** Bursts of identical calls that each sent one request. */
  let bursts = 0;
  /** Runs `action` and asserts it sent exactly `expected` requests ending in `suffix`. */
  const counting = async <T>(suffix: string, expected: number, action: () => Promise<T>) => {
    const before = sent(suffix);
    const value = await action();
    const delta = sent(suffix) - before;
    counts[suffix] = (counts[suffix] ?? 0) + delta;
    assert.equal(delta, expected, `${suffix}: ${delta} daemon requests`);
    if (expected === 1) bursts++;
    return value;
  };
  const conflict = async (name: string, args: Data, suffix: string, hint: RegExp) => {
    const e = await counting(suffix, 0, async () => envelopeOf(await peer.tool(name, args)));
    assert.equal(e.ok, false, `${name} with other arguments must not succeed`);
    assert.equal(e.error?.code, "portreeve_conflict");
    const reason = String(e.error?.details.reason);
    assert.match(reason, /^(lease|activation|operation)_held_with_other_arguments$/, reason);
    // How to go on is the reason's own next step.
    assert.match(e.error!.nextStep, hint, e.error!.nextStep);
  };
  /** A burst of identical calls of `tool`: one shared result, one request to `suffix`. */
  const once = (suffix: string, tool: string, args: Data) =>
    counting(suffix, 1, async () => shared(tool, await burst(peer, tool, args)));
  try {
    await peer.initialize();

    await t.step("lease acquire, confirm and abandon", async () => {
      const claim = { project: "flight", workspaceRoot: workspace, component: "api" };
      const lease = await once("/v1/leases/acquire", "portreeve_lease_acquire", { claim });
      await conflict(
        "portreeve_lease_acquire",
        { claim, allocation: { mode: "ephemeral" } },
        "/v1/leases/acquire",
        /portreeve_lease_abandon/,
      );
      await conflict(
        "portreeve_lease_acquire",
        { claim, allocation: { exactPort: 1 + (lease.port as number) } },
        "/v1/leases/acquire",
        /abandon/,
      );
      // The same request spelled with defaults and the legacy alias is no conflict.
      const again = envelopeOf(
        await peer.tool("portreeve_lease_acquire", {
          claim: { ...claim, component: undefined, service: "api", endpoint: "default" },
          allocation: { mode: "sticky" },
        }),
      );
      assert.equal(again.ok, true, JSON.stringify(again.error));
      assert.equal(again.data!.changed, false);
      assert.equal(again.data!.credentialHandle, lease.credentialHandle);

      sim.control.addListener(lease.port as number, 42_001);
      await once("/confirm", "portreeve_lease_confirm", {
        credentialHandle: lease.credentialHandle,
        rootPid: 42_001,
      });

      const other = envelopeOf(
        await peer.tool("portreeve_lease_acquire", { claim: { ...claim, component: "worker" } }),
      ).data!;
      await once("/abandon", "portreeve_lease_abandon", {
        credentialHandle: other.credentialHandle,
        reason: "startup-error",
      });
    });

    await t.step("activation begin, confirm, skip and abandon", async () => {
      const { stack } = await seed.post("/v1/stacks/apply", { stackRoot, definition: STACK }) as {
        stack: { id: string };
      };
      const prepared = envelopeOf(await peer.tool("portreeve_stack_prepare", { stackId: stack.id }))
        .data!;
      const generationId = (prepared.generation as { id: string }).id;
      const begun = await once("/v1/stack-activations/begin", "portreeve_activation_begin", {
        generationId,
      });
      await conflict(
        "portreeve_activation_begin",
        { generationId, skippedEndpoints: [{ component: "metrics", endpoint: "http" }] },
        "/v1/stack-activations/begin",
        /portreeve_activation_end/,
      );
      const activationId = (begun.activation as { id: string }).id;
      const leases = begun.leases as {
        component: string;
        port: number;
        credentialHandle: string;
      }[];
      const of = (component: string) => leases.find((l) => l.component === component)!;
      sim.control.addListener(of("api").port, 42_002);
      await once("/confirm", "portreeve_activation_confirm_endpoint", {
        activationId,
        credentialHandle: of("api").credentialHandle,
        bindingKind: "process",
        rootPid: 42_002,
      });
      await once("/skip", "portreeve_activation_skip_endpoint", {
        activationId,
        credentialHandle: of("metrics").credentialHandle,
      });
      const abandoned = await once("/abandon", "portreeve_activation_abandon_endpoint", {
        activationId,
        credentialHandle: of("web").credentialHandle,
        reason: "startup-error",
      });
      assert.equal((abandoned.activation as { state: string }).state, "failed");
    });

    await t.step("launcher begin and complete", async () => {
      const [{ id: stackId }] = await seed.get("/v1/stacks") as { id: string }[];
      const begin = {
        stackId,
        operation: "start",
        launcherRevision: "e".repeat(64),
        callerOperationId: crypto.randomUUID(),
      };
      const op = await once(
        "/v1/launcher-operations/begin",
        "portreeve_launcher_operation_begin",
        begin,
      );
      await conflict(
        "portreeve_launcher_operation_begin",
        { ...begin, operation: "status" },
        "/v1/launcher-operations/begin",
        /portreeve_launcher_operation_complete/,
      );
      await once("/complete", "portreeve_launcher_operation_complete", {
        operationId: op.operationId,
        credentialHandle: op.credentialHandle,
        completion: { outcome: "succeeded", exitCode: 0 },
      });
    });

    assert.deepEqual(peer.violations, []);
    console.log(
      `${WAYS}-way bursts; daemon requests per burst: ${
        Object.entries(counts).map(([k, v]) => `${k}=${v}`).join(", ")
      }`,
    );
    await reportFigure(
      "identical calls at once",
      `${bursts} bursts of ${WAYS} identical calls: 1 daemon request each; ` +
        "other arguments while held: 0 sent",
    );
  } finally {
    await rig.close();
  }
});
