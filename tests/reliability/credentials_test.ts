/**
 * Issue 7 §6 — credentials. A full scenario over the raw peer with `--log-level debug` and a
 * 1.5 s lease TTL (so renewals carry tokens all along): standalone leases (confirm, abandon,
 * release), a two-endpoint activation (extend, confirm, resolve, reconcile, end), a launcher
 * operation (renew, complete), replays and failures. Then every byte the bridge wrote to
 * stdout and stderr is scanned for every raw token and credential the simulator issued — whole,
 * and their first and last 16 characters. Zero matches.
 */
import assert from "node:assert/strict";
import { withSimulator } from "../e2e/harness.ts";
import { seeder, TWO_COMPONENT_STACK } from "../e2e/seed.ts";
import { envelopeOf, type Peer, sleep, spawnPeer } from "./peer.ts";
import type { Simulator } from "../../src/simulator/mod.ts";

type Data = Record<string, unknown>;

/** Raw secrets: every leaseToken / credential the bridge sent the daemon, and any in its state. */
function issuedSecrets(sim: Simulator): Set<string> {
  const secrets = new Set<string>();
  const visit = (value: unknown, depth = 0) => {
    if (depth > 20) return;
    if (Array.isArray(value)) value.forEach((v) => visit(v, depth + 1));
    else if (value instanceof Map) [...value.values()].forEach((v) => visit(v, depth + 1));
    else if (value && typeof value === "object") {
      for (const [key, v] of Object.entries(value)) {
        if (
          /^(leaseToken|credential|token|operationCredential)$/.test(key) && typeof v === "string"
        ) {
          secrets.add(v);
        } else visit(v, depth + 1);
      }
    }
  };
  for (const request of sim.requests) visit(request.body);
  visit(sim.control.state);
  return secrets;
}

Deno.test("credentials: no raw token or credential ever reaches stdout or stderr", async () => {
  const env = await withSimulator({ observeHost: true, settings: { leaseTtlMilliseconds: 1_500 } });
  const { sim } = env;
  const seed = seeder(env.socketPath);
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-rel-ws-" }));
  const stackRoot = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-rel-stack-" }));
  const listeners: Deno.Listener[] = [];
  const peer: Peer = spawnPeer({
    socketPath: env.socketPath,
    serveArgs: ["--log-level", "debug", "--label", "credentials"],
  });
  const ok = async (tool: string, args: Data = {}): Promise<Data> => {
    const e = envelopeOf(await peer.tool(tool, args));
    assert.equal(e.ok, true, `${tool}: ${JSON.stringify(e.error)}`);
    return e.data!;
  };
  const fails = async (tool: string, args: Data): Promise<void> => {
    const e = envelopeOf(await peer.tool(tool, args));
    assert.equal(e.ok, false, `${tool} should fail`);
  };
  try {
    await peer.initialize();
    // Standalone lease: acquire, renewals, confirm with a real listener, replay, release.
    const lease = await ok("portreeve_lease_acquire", {
      claim: { project: "cred", workspaceRoot: workspace, component: "api" },
    });
    await sleep(1_200); // renewals with the raw token
    listeners.push(Deno.listen({ hostname: "127.0.0.1", port: lease.port as number }));
    const confirmed = await ok("portreeve_lease_confirm", {
      credentialHandle: lease.credentialHandle,
      rootPid: Deno.pid,
    });
    await ok("portreeve_lease_confirm", {
      credentialHandle: lease.credentialHandle,
      rootPid: Deno.pid,
    });
    await fails("portreeve_lease_abandon", {
      credentialHandle: lease.credentialHandle,
      reason: "startup-error",
    });
    await ok("portreeve_run_release", { runId: confirmed.runId });
    // A second lease, abandoned.
    const second = await ok("portreeve_lease_acquire", {
      claim: { project: "cred", workspaceRoot: workspace, component: "worker" },
    });
    await ok("portreeve_lease_abandon", {
      credentialHandle: second.credentialHandle,
      reason: "client-cancelled",
    });
    await fails("portreeve_lease_confirm", { credentialHandle: "Z".repeat(43), rootPid: 1 });

    // Activation of a two-component stack.
    const { stack } = await seed.post("/v1/stacks/apply", {
      stackRoot,
      definition: TWO_COMPONENT_STACK,
    }) as { stack: { id: string } };
    const prepared = await ok("portreeve_stack_prepare", { stackId: stack.id });
    const begun = await ok("portreeve_activation_begin", {
      generationId: (prepared.generation as { id: string }).id,
    });
    const activationId = (begun.activation as { id: string }).id;
    await ok("portreeve_activation_custody_extend", { activationId, custodyMinutes: 20 });
    await sleep(1_200);
    const leases = begun.leases as { port: number; credentialHandle: string }[];
    for (const l of leases) listeners.push(Deno.listen({ hostname: "127.0.0.1", port: l.port }));
    for (const l of leases) {
      await ok("portreeve_activation_confirm_endpoint", {
        activationId,
        credentialHandle: l.credentialHandle,
        bindingKind: "process",
        rootPid: Deno.pid,
      });
    }
    await ok("portreeve_activation_resolve", { activationId, component: "web" });
    for (const l of listeners.splice(0)) l.close();
    await ok("portreeve_activation_reconcile", { activationId });
    await ok("portreeve_activation_end", { activationId });

    // Launcher operation.
    const op = await ok("portreeve_launcher_operation_begin", {
      stackId: stack.id,
      operation: "start",
      launcherRevision: "d".repeat(64),
      callerOperationId: crypto.randomUUID(),
    });
    await ok("portreeve_launcher_operation_renew", {
      operationId: op.operationId,
      credentialHandle: op.credentialHandle,
      custodyMinutes: 15,
    });
    await ok("portreeve_launcher_operation_complete", {
      operationId: op.operationId,
      credentialHandle: op.credentialHandle,
      completion: { outcome: "succeeded", exitCode: 0 },
    });
    await ok("portreeve_diagnostics");
    await peer.closeStdin();
    assert.equal((await peer.exited()).code, 0);

    const secrets = issuedSecrets(sim);
    assert.ok(secrets.size >= 5, `the scenario used ${secrets.size} secrets`);
    const renewals = sim.requests.filter((r) => r.path.endsWith("/renew")).length;
    assert.ok(renewals >= 4, `${renewals} renewals carried tokens`);
    const written = { stdout: peer.stdoutText(), stderr: peer.stderrText() };
    assert.ok(written.stderr.includes('"level"'), "debug logs were written");
    for (const [stream, text] of Object.entries(written)) {
      for (const secret of secrets) {
        for (const piece of [secret, secret.slice(0, 16), secret.slice(-16)]) {
          assert.ok(!text.includes(piece), `a raw secret (or part of one) reached ${stream}`);
        }
      }
    }
    assert.deepEqual(peer.violations, []);
    console.log(
      `${secrets.size} secrets, ${renewals} renewals; scanned ${written.stdout.length} stdout and ${written.stderr.length} stderr characters`,
    );
  } finally {
    for (const l of listeners) l.close();
    await peer.closeStdin();
    await peer.exited();
    seed.close();
    await env.cleanup();
    await Deno.remove(workspace, { recursive: true });
    await Deno.remove(stackRoot, { recursive: true });
  }
});
