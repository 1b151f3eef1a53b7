/**
 * Daemon replies are checked where they arrive. The real `serve` process, real stdio, real
 * flags, against the simulator answering `{"protocolVersion":1,"data":null}` on every route but
 * health: every tool that reaches the daemon must answer `portreeve_invalid_response` naming
 * the route — never `portreeve_internal`, never a success built from nothing — and the bridge
 * keeps serving. The handles custody tools need are taken before the fault is switched on.
 */
import assert from "node:assert/strict";
import { withSimulator } from "../e2e/harness.ts";
import { seeder, TWO_COMPONENT_STACK } from "../e2e/seed.ts";
import { assertNoBridgeBug, envelopeOf, type Peer, spawnPeer } from "../support/raw_peer.ts";

type Args = Record<string, unknown>;

async function ok(peer: Peer, tool: string, args: Args = {}): Promise<Record<string, unknown>> {
  const env = envelopeOf(await peer.tool(tool, args));
  assert.equal(env.ok, true, `${tool}: ${JSON.stringify(env.error)}`);
  return env.data!;
}

Deno.test("wrong-shaped daemon replies: portreeve_invalid_response naming the route, for every route the catalogue uses", async () => {
  const env = await withSimulator();
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-rel-shape-" }));
  const seed = seeder(env.socketPath);
  // `auto`: this peer cannot ask, and the executes' own replies are what is checked here.
  const peer = spawnPeer({
    socketPath: env.socketPath,
    serveArgs: ["--log-level", "debug", "--approval", "auto"],
  });
  try {
    await peer.initialize();
    await Deno.mkdir(`${root}/a`);
    await Deno.mkdir(`${root}/b`);
    const { stack } = await seed.post("/v1/stacks/apply", {
      stackRoot: `${root}/a`,
      definition: TWO_COMPONENT_STACK,
    }) as { stack: { id: string } };
    const lease = await ok(peer, "portreeve_lease_acquire", {
      claim: { project: "shape", workspaceRoot: root, component: "api" },
    });
    const prepared = await ok(peer, "portreeve_stack_prepare", { stackId: stack.id });
    const begun = await ok(peer, "portreeve_activation_begin", {
      generationId: (prepared.generation as { id: string }).id,
    });
    const activationId = (begun.activation as { id: string }).id;
    const [api, web] = begun.leases as { credentialHandle: string }[];
    // Two operations (one per stack): a failed manual renewal erases its credential, as
    // custody must, so completing needs another.
    const { stack: other } = await seed.post("/v1/stacks/apply", {
      stackRoot: `${root}/b`,
      definition: { ...TWO_COMPONENT_STACK, project: "shop-two" },
    }) as { stack: { id: string } };
    const held: Record<string, unknown>[] = [];
    for (const stackId of [stack.id, other.id]) {
      held.push(
        await ok(peer, "portreeve_launcher_operation_begin", {
          stackId,
          operation: "start",
          launcherRevision: "b".repeat(64),
          callerOperationId: crypto.randomUUID(),
        }),
      );
    }
    const [operation, completing] = held;
    const any = () => crypto.randomUUID();
    const receipts = await issueReceipts(peer, env, seed, root);
    const cases: [string, Args, string][] = [
      ["portreeve_settings_get", {}, "GET /v1/config"],
      ["portreeve_ports_list", {}, "GET /v1/ports"],
      ["portreeve_port_inspect", { port: 4100 }, "GET /v1/ports/{port}"],
      ["portreeve_claims_list", {}, "GET /v1/claims"],
      ["portreeve_claim_get", { id: any() }, "GET /v1/claims/{claimId}"],
      ["portreeve_stacks_list", {}, "GET /v1/stacks"],
      ["portreeve_stack_get", { id: stack.id }, "GET /v1/stacks/{stackId}"],
      ["portreeve_generations_list", {}, "GET /v1/stack-generations"],
      ["portreeve_generation_get", { id: any() }, "GET /v1/stack-generations/{generationId}"],
      ["portreeve_activations_list", {}, "GET /v1/stack-activations"],
      ["portreeve_activation_get", { id: any() }, "GET /v1/stack-activations/{activationId}"],
      ["portreeve_history_list", {}, "GET /v1/history"],
      [
        "portreeve_lease_acquire",
        { claim: { project: "shape", workspaceRoot: root, component: "other" } },
        "POST /v1/leases/acquire",
      ],
      [
        "portreeve_lease_confirm",
        { credentialHandle: lease.credentialHandle, rootPid: Deno.pid },
        "POST /v1/leases/{leaseId}/confirm",
      ],
      [
        "portreeve_lease_abandon",
        { credentialHandle: lease.credentialHandle, reason: "client-cancelled" },
        "POST /v1/leases/{leaseId}/abandon",
      ],
      ["portreeve_run_release", { runId: any() }, "POST /v1/runs/{runId}/release"],
      ["portreeve_stack_status", { stackId: stack.id }, "POST /v1/stacks/{stackId}/status"],
      ["portreeve_stack_prepare", { stackId: stack.id }, "POST /v1/stacks/{stackId}/prepare"],
      ["portreeve_activation_begin", { generationId: any() }, "POST /v1/stack-activations/begin"],
      [
        "portreeve_activation_resolve",
        { activationId, component: "web" },
        "POST /v1/stack-activations/{activationId}/resolve",
      ],
      [
        "portreeve_activation_confirm_endpoint",
        {
          activationId,
          credentialHandle: api.credentialHandle,
          bindingKind: "process",
          rootPid: Deno.pid,
        },
        "POST /v1/stack-activations/{activationId}/confirm",
      ],
      [
        "portreeve_activation_skip_endpoint",
        { activationId, credentialHandle: web.credentialHandle },
        "POST /v1/stack-activations/{activationId}/skip",
      ],
      [
        "portreeve_activation_abandon_endpoint",
        { activationId, credentialHandle: api.credentialHandle, reason: "client-cancelled" },
        "POST /v1/stack-activations/{activationId}/abandon",
      ],
      [
        "portreeve_activation_reconcile",
        { activationId },
        "POST /v1/stack-activations/{activationId}/reconcile",
      ],
      [
        "portreeve_activation_end",
        { activationId },
        "POST /v1/stack-activations/{activationId}/end",
      ],
      [
        "portreeve_stack_snapshot",
        { activationId, component: "web", gatewayHost: "host.docker.internal" },
        "POST /v1/stack-activations/{activationId}/snapshot",
      ],
      [
        "portreeve_port_reclaim_preview",
        { port: 4100, policy: "graceful" },
        "POST /v1/actions/ports/{port}/reclaim/preview",
      ],
      [
        "portreeve_port_reclaim_execute",
        { receiptId: receipts.reclaim, port: receipts.port },
        "POST /v1/actions/ports/{port}/reclaim/execute",
      ],
      [
        "portreeve_claim_reassign_preview",
        { claimId: lease.claimId },
        "POST /v1/actions/claims/{claimId}/reassign/preview",
      ],
      [
        "portreeve_claim_reassign_execute",
        { receiptId: receipts.reassign, claimId: receipts.claimId },
        "POST /v1/actions/claims/{claimId}/reassign/execute",
      ],
      [
        "portreeve_claim_delete_preview",
        { claimId: lease.claimId },
        "POST /v1/actions/claims/{claimId}/delete/preview",
      ],
      [
        "portreeve_claim_delete_execute",
        { receiptId: receipts.delete, claimId: receipts.claimId },
        "POST /v1/actions/claims/{claimId}/delete/execute",
      ],
      [
        "portreeve_claims_prune_preview",
        { olderThanMilliseconds: 0 },
        "POST /v1/actions/claims/prune/preview",
      ],
      [
        "portreeve_claims_prune_execute",
        { receiptId: receipts.claimsPrune },
        "POST /v1/actions/claims/prune/execute",
      ],
      ["portreeve_stack_document_get", { stackRoot: root }, "GET /v1/stack-document"],
      [
        "portreeve_stack_definition_validate",
        { definition: TWO_COMPONENT_STACK },
        "POST /v1/actions/stack-definition/validate",
      ],
      [
        "portreeve_stack_apply_preview",
        { stackRoot: root, definition: TWO_COMPONENT_STACK },
        "POST /v1/actions/stacks/apply/preview",
      ],
      [
        "portreeve_stack_apply_execute",
        { receiptId: receipts.apply, stackRoot: receipts.stackRoot },
        "POST /v1/actions/stacks/apply/execute",
      ],
      [
        "portreeve_stacks_prune_preview",
        { olderThanMilliseconds: 0 },
        "POST /v1/actions/stacks/prune/preview",
      ],
      [
        "portreeve_stacks_prune_execute",
        { receiptId: receipts.stacksPrune },
        "POST /v1/actions/stacks/prune/execute",
      ],
      [
        "portreeve_settings_update_preview",
        { updates: { leaseTtlMilliseconds: 20_000 } },
        "POST /v1/actions/settings/preview",
      ],
      [
        "portreeve_settings_update_execute",
        { receiptId: receipts.settings },
        "POST /v1/actions/settings/execute",
      ],
      [
        "portreeve_launcher_operation_begin",
        {
          stackId: stack.id,
          operation: "status",
          launcherRevision: "c".repeat(64),
          callerOperationId: any(),
        },
        "POST /v1/launcher-operations/begin",
      ],
      [
        "portreeve_launcher_operation_renew",
        { operationId: operation.operationId, credentialHandle: operation.credentialHandle },
        "POST /v1/launcher-operations/{operationId}/renew",
      ],
      [
        "portreeve_launcher_operation_complete",
        {
          operationId: completing.operationId,
          credentialHandle: completing.credentialHandle,
          completion: { outcome: "succeeded" },
        },
        "POST /v1/launcher-operations/{operationId}/complete",
      ],
      [
        "portreeve_launcher_operation_get",
        { operationId: operation.operationId },
        "GET /v1/launcher-operations/{operationId}",
      ],
      [
        "portreeve_launcher_operations_list",
        { stackId: stack.id },
        "GET /v1/stacks/{stackId}/launcher-operations",
      ],
    ];

    env.sim.control.setFault("wrong-shape");
    const failures: string[] = [];
    for (const [tool, args, route] of cases) {
      const env = envelopeOf(await peer.tool(tool, args));
      const error = env.error;
      if (
        env.ok || error?.code !== "portreeve_invalid_response" ||
        !error.message.includes(route) || error.details.route !== route
      ) {
        failures.push(`${tool}: ${JSON.stringify(env.ok ? env.data : error)}`);
      }
    }
    assert.deepEqual(failures, [], "every wrong-shaped reply is portreeve_invalid_response");
    env.sim.control.setFault("none");
    await ok(peer, "portreeve_ports_list"); // the bridge keeps serving
    assert.deepEqual(peer.violations, [], "stdout carried frames only");
    assertNoBridgeBug(peer);
    assert.doesNotMatch(peer.stderrText(), /portreeve_internal|"level":"ERROR"/);
    console.log(`${cases.length} tools, each answered portreeve_invalid_response naming its route`);
  } finally {
    await peer.closeStdin();
    await peer.exited();
    seed.close();
    await env.cleanup();
    await Deno.remove(root, { recursive: true });
  }
});

/**
 * A receipt for each execute, issued through this peer (a receipt executes only through the
 * bridge that issued it), each for a change the daemon would make.
 */
async function issueReceipts(
  peer: Peer,
  env: Awaited<ReturnType<typeof withSimulator>>,
  seed: ReturnType<typeof seeder>,
  root: string,
) {
  const receiptOf = async (tool: string, args: Args) => (await ok(peer, tool, args)).receiptId;
  // A confirmed run whose listener PortReeve owns: a reclaim would signal it.
  const held = await ok(peer, "portreeve_lease_acquire", {
    claim: { project: "shape", workspaceRoot: root, component: "held" },
  });
  const port = held.port as number;
  env.sim.control.addListener(port, 4747, { command: "node" });
  await ok(peer, "portreeve_lease_confirm", {
    credentialHandle: held.credentialHandle,
    rootPid: 4747,
  });
  // An idle claim, and one whose workspace is gone.
  const idle = await ok(peer, "portreeve_lease_acquire", {
    claim: { project: "shape", workspaceRoot: root, component: "idle" },
  });
  await ok(peer, "portreeve_lease_abandon", {
    credentialHandle: idle.credentialHandle,
    reason: "client-cancelled",
  });
  await Deno.mkdir(`${root}/gone`);
  const gone = await ok(peer, "portreeve_lease_acquire", {
    claim: { project: "shape", workspaceRoot: `${root}/gone`, component: "api" },
  });
  await ok(peer, "portreeve_lease_abandon", {
    credentialHandle: gone.credentialHandle,
    reason: "client-cancelled",
  });
  await Deno.remove(`${root}/gone`);
  // A stack whose root is gone, and a root with no stack yet.
  await Deno.mkdir(`${root}/gone-stack`);
  await seed.post("/v1/stacks/apply", {
    stackRoot: `${root}/gone-stack`,
    definition: { ...TWO_COMPONENT_STACK, project: "shop-gone" },
  });
  await Deno.remove(`${root}/gone-stack`, { recursive: true });
  const stackRoot = `${root}/c`;
  await Deno.mkdir(stackRoot);
  const claimId = idle.claimId as string;
  return {
    port,
    claimId,
    stackRoot,
    reclaim: await receiptOf("portreeve_port_reclaim_preview", { port, policy: "graceful" }),
    reassign: await receiptOf("portreeve_claim_reassign_preview", { claimId }),
    delete: await receiptOf("portreeve_claim_delete_preview", { claimId }),
    claimsPrune: await receiptOf("portreeve_claims_prune_preview", { olderThanMilliseconds: 0 }),
    apply: await receiptOf("portreeve_stack_apply_preview", {
      stackRoot,
      definition: { ...TWO_COMPONENT_STACK, project: "shop-c" },
    }),
    stacksPrune: await receiptOf("portreeve_stacks_prune_preview", { olderThanMilliseconds: 0 }),
    settings: await receiptOf("portreeve_settings_update_preview", {
      updates: { leaseTtlMilliseconds: 20_000 },
    }),
  };
}
