/**
 * Coordination end to end over real stdio: a standalone lease bound by a real loopback
 * listener, a two-component stack from prepare to end, a launcher operation, the custody window
 * and limits, cross-bridge handles, and a scan proving no raw token ever left the bridge.
 */
import assert from "node:assert/strict";
import { type Bridge, call, startBridge, withSimulator } from "./harness.ts";
import { seeder, TWO_COMPONENT_STACK } from "./seed.ts";
import type { Simulator } from "../../src/simulator/mod.ts";

type Data = Record<string, unknown>;

async function ok(bridge: Bridge, tool: string, args: Data = {}): Promise<Data> {
  const r = await call(bridge, tool, args);
  assert.equal(r.isError, false, `${tool}: ${r.text}`);
  return r.envelope.data!;
}

async function fails(bridge: Bridge, tool: string, args: Data, code: string): Promise<Data> {
  const r = await call(bridge, tool, args);
  assert.equal(r.isError, true, `${tool} should fail: ${r.text}`);
  assert.equal(r.envelope.error?.code, code, `${tool}: ${r.text}`);
  return r.envelope.error as unknown as Data;
}

/** Every raw secret the daemon handed out, as seen in the bridge's own requests to it. */
function issuedSecrets(sim: Simulator): Set<string> {
  const secrets = new Set<string>();
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === "object") {
      for (const [key, v] of Object.entries(value)) {
        if ((key === "leaseToken" || key === "credential") && typeof v === "string") secrets.add(v);
        else visit(v);
      }
    }
  };
  for (const request of sim.requests) visit(request.body);
  return secrets;
}

function assertNoSecrets(secrets: Set<string>, bridges: Bridge[]): void {
  assert.ok(secrets.size > 0, "the scenario used secrets");
  for (const bridge of bridges) {
    const written = bridge.stdoutFrames().join("\n") + "\n" + bridge.stderr();
    for (const secret of secrets) {
      assert.ok(!written.includes(secret), "a raw token reached stdout or stderr");
    }
  }
}

Deno.test("coordination end to end", async (t) => {
  const env = await withSimulator({ observeHost: true });
  const seed = seeder(env.socketPath);
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-ws-" }));
  const stackRoot = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-stack-" }));
  const bridges: Bridge[] = [];
  const listeners: Deno.Listener[] = [];
  const listen = (port: number) => {
    const l = Deno.listen({ hostname: "127.0.0.1", port });
    listeners.push(l);
    return l;
  };
  try {
    const a = await startBridge({
      socketPath: env.socketPath,
      serveArgs: ["--label", "e2e-a", "--log-level", "debug"],
    });
    bridges.push(a);
    const other = await startBridge({
      socketPath: env.socketPath,
      serveArgs: ["--log-level", "debug"],
    });
    bridges.push(other);

    await t.step(
      "standalone lease: acquire, bind a real listener, confirm with its PID, release",
      async () => {
        const claim = {
          project: "web",
          workspaceRoot: workspace,
          component: "api",
          endpoint: "http",
        };
        const lease = await ok(a, "portreeve_lease_acquire", { claim });
        assert.equal(lease.changed, true);
        assert.match(lease.credentialHandle as string, /^[A-Za-z0-9_-]{43}$/);
        const again = await ok(a, "portreeve_lease_acquire", { claim });
        assert.equal(again.changed, false, "a repeat returns the lease already held");
        assert.equal(again.credentialHandle, lease.credentialHandle);
        assert.equal(again.port, lease.port);

        await fails(other, "portreeve_lease_confirm", {
          credentialHandle: lease.credentialHandle,
          rootPid: Deno.pid,
        }, "portreeve_credential_unavailable");

        const listener = listen(lease.port as number);
        const confirmed = await ok(a, "portreeve_lease_confirm", {
          credentialHandle: lease.credentialHandle,
          rootPid: Deno.pid,
        });
        assert.equal(confirmed.changed, true);
        assert.equal(confirmed.port, lease.port);
        const replay = await ok(a, "portreeve_lease_confirm", {
          credentialHandle: lease.credentialHandle,
          rootPid: Deno.pid,
        });
        assert.equal(replay.changed, false, "a repeated confirm returns the achieved state");
        assert.equal(replay.runId, confirmed.runId);
        await fails(a, "portreeve_lease_abandon", {
          credentialHandle: lease.credentialHandle,
          reason: "startup-error",
        }, "portreeve_credential_unavailable");

        const inspected = await ok(a, "portreeve_port_inspect", { port: lease.port });
        assert.equal(inspected.classification, "verified");
        listeners.splice(listeners.indexOf(listener), 1);
        listener.close();
        const released = await ok(a, "portreeve_run_release", { runId: confirmed.runId });
        assert.equal(released.changed, true);
        assert.equal(
          (await ok(a, "portreeve_run_release", { runId: confirmed.runId })).changed,
          false,
        );
      },
    );

    await t.step("lease input errors are clear", async () => {
      await fails(a, "portreeve_lease_acquire", {
        claim: { project: "p", workspaceRoot: "rel", component: "c" },
      }, "portreeve_invalid_input");
      await fails(a, "portreeve_lease_acquire", {
        claim: { project: "p", workspaceRoot: workspace },
      }, "portreeve_invalid_input");
      await fails(a, "portreeve_lease_acquire", {
        claim: { project: "p", workspaceRoot: workspace, component: "c" },
        allocation: { preferredPort: 41000, exactPort: 41001 },
      }, "portreeve_invalid_input");
      await fails(
        a,
        "portreeve_lease_confirm",
        { credentialHandle: "x".repeat(43), rootPid: 1 },
        "portreeve_credential_unavailable",
      );
    });

    await t.step(
      "two-component stack: prepare, begin, confirm both, resolve, reconcile, end",
      async () => {
        const { stack } = await seed.post("/v1/stacks/apply", {
          stackRoot,
          definition: TWO_COMPONENT_STACK,
        }) as { stack: { id: string } };
        const prepared = await ok(a, "portreeve_stack_prepare", { stackId: stack.id });
        assert.equal(prepared.changed, true);
        assert.equal((await ok(a, "portreeve_stack_prepare", { stackId: stack.id })).reused, true);
        const generationId = (prepared.generation as { id: string }).id;
        const begun = await ok(a, "portreeve_activation_begin", { generationId });
        const activationId = (begun.activation as { id: string }).id;
        const leases = begun.leases as {
          component: string;
          port: number;
          credentialHandle: string;
        }[];
        assert.equal(leases.length, 2);
        assert.equal(begun.credentialCount, 2);
        // Each lease says how long this bridge holds it (the activation's custody window), as
        // the reference bridge's leases do: the times all leases share are stated once, in the
        // schema-declared `everyLease` beside them, not as fields of the answer itself.
        const every = (begun.everyLease ?? {}) as Data;
        for (const lease of leases as unknown as Data[]) {
          const whole = { ...every, ...lease };
          assert.ok(typeof whole.custodyExpiresAt === "string");
          assert.ok(typeof whole.maximumCustodyExpiresAt === "string");
        }
        assert.equal(typeof every.custodyExpiresAt, "string", "two leases, one custody window");
        assert.equal(begun.custodyExpiresAt, undefined);
        const repeat = await ok(a, "portreeve_activation_begin", { generationId });
        assert.equal(repeat.changed, false);
        assert.equal((repeat.activation as { id: string }).id, activationId);

        const extended = await ok(a, "portreeve_activation_custody_extend", {
          activationId,
          custodyMinutes: 30,
        });
        assert.equal(extended.changed, true);
        await fails(
          a,
          "portreeve_activation_custody_extend",
          { activationId, custodyMinutes: 61 },
          "portreeve_invalid_input",
        );
        await fails(other, "portreeve_activation_custody_extend", {
          activationId,
          custodyMinutes: 20,
        }, "portreeve_credential_unavailable");

        await fails(a, "portreeve_activation_confirm_endpoint", {
          activationId,
          credentialHandle: leases[0].credentialHandle,
          bindingKind: "process",
          rootPid: Deno.pid,
          containerId: "abcdef012345",
        }, "portreeve_invalid_input");

        for (const lease of leases) listen(lease.port);
        let last: Data = {};
        for (const lease of leases) {
          last = await ok(a, "portreeve_activation_confirm_endpoint", {
            activationId,
            credentialHandle: lease.credentialHandle,
            bindingKind: "process",
            rootPid: Deno.pid,
          });
        }
        assert.equal((last.activation as { state: string }).state, "confirmed");
        const resolved = await ok(a, "portreeve_activation_resolve", {
          activationId,
          component: "web",
        });
        const backend =
          (resolved.dependencies as Record<string, { host: { port: number } }>).backend;
        assert.equal(backend.host.port, leases.find((l) => l.component === "api")!.port);

        await fails(a, "portreeve_activation_end", { activationId }, "portreeve_conflict");
        for (const l of listeners.splice(0)) l.close();
        const reconciled = await ok(a, "portreeve_activation_reconcile", { activationId });
        assert.equal((reconciled.activation as { state: string }).state, "lost");
        const ended = await ok(a, "portreeve_activation_end", { activationId });
        assert.equal((ended.activation as { state: string }).state, "ended");
        assert.equal((await ok(a, "portreeve_activation_end", { activationId })).changed, false);
      },
    );

    await t.step("launcher operation: begin, renew, get, complete, replay", async () => {
      const { stack } = await seed.get(`/v1/stacks?stackRoot=${encodeURIComponent(stackRoot)}`)
        .then((s) => ({
          stack: (s as { id: string }[])[0],
        }));
      const callerOperationId = crypto.randomUUID();
      const input = {
        stackId: stack.id,
        operation: "start",
        launcherRevision: "b".repeat(64),
        callerOperationId,
      };
      const begun = await ok(a, "portreeve_launcher_operation_begin", input);
      assert.equal(begun.changed, true);
      assert.equal((await ok(a, "portreeve_launcher_operation_begin", input)).changed, false);
      await fails(a, "portreeve_launcher_operation_begin", {
        ...input,
        operation: "stop",
        executionMode: "attached",
      }, "portreeve_invalid_input");
      const operationId = begun.operationId as string;
      const renewed = await ok(a, "portreeve_launcher_operation_renew", {
        operationId,
        credentialHandle: begun.credentialHandle,
        custodyMinutes: 20,
      });
      assert.equal(renewed.custodyChanged, true);
      await fails(a, "portreeve_launcher_operation_renew", {
        operationId,
        credentialHandle: begun.credentialHandle,
        custodyMinutes: 90,
      }, "portreeve_invalid_input");
      const completion = { outcome: "succeeded", exitCode: 0 };
      const done = await ok(a, "portreeve_launcher_operation_complete", {
        operationId,
        credentialHandle: begun.credentialHandle,
        completion,
      });
      assert.equal((done.operation as { state: string }).state, "terminal");
      const replay = await ok(a, "portreeve_launcher_operation_complete", {
        operationId,
        credentialHandle: begun.credentialHandle,
        completion,
      });
      assert.equal(replay.changed, false);
      const other = await fails(a, "portreeve_launcher_operation_complete", {
        operationId,
        credentialHandle: begun.credentialHandle,
        completion: { outcome: "failed", exitCode: 1 },
      }, "portreeve_conflict");
      assert.equal((other.details as Data).reason, "settled_with_other_arguments");
      assert.equal(
        (await ok(a, "portreeve_launcher_operation_get", { operationId })).outcome,
        "succeeded",
      );
    });

    await t.step("no raw token appears in anything the bridges wrote", () => {
      assertNoSecrets(issuedSecrets(env.sim), bridges);
    });
  } finally {
    for (const l of listeners) l.close();
    for (const b of bridges) await b.close();
    seed.close();
    await env.cleanup();
    await Deno.remove(workspace, { recursive: true });
    await Deno.remove(stackRoot, { recursive: true });
  }
});

/**
 * `--custody-ms` reaches custody: the window it sets is the one a held lease reports, read
 * against the maximum window (an hour), which custody measures from the same instant; no clock
 * of this test's is involved. What custody does when the window ends (erases the credential,
 * stops renewing, answers credential_unavailable) runs on a fake clock in
 * tests/unit/custody/vault_test.ts.
 */
Deno.test("custody: --custody-ms sets the window a held lease reports", async () => {
  const env = await withSimulator();
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-ws-" }));
  const bridge = await startBridge({
    socketPath: env.socketPath,
    serveArgs: ["--custody-ms", "1500"],
  });
  try {
    const lease = await ok(bridge, "portreeve_lease_acquire", {
      claim: { project: "p", workspaceRoot: workspace, component: "c" },
    });
    const until = Date.parse(lease.custodyExpiresAt as string);
    const maximum = Date.parse(lease.maximumCustodyExpiresAt as string);
    assert.equal(maximum - until, 60 * 60_000 - 1500, "a window of 1.5 s out of the hour");
  } finally {
    await bridge.close();
    await env.cleanup();
    await Deno.remove(workspace, { recursive: true });
  }
});
