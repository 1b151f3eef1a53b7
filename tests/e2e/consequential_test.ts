/**
 * Consequential preview/execute pairs end to end: real bridge over stdio, simulator on a real
 * socket. Covers each pair, drifted evidence, expiry, replay, wrong targets, an external edit
 * of portreeve.stack.json and schema rejections. Each test has a bridge and daemon of its own;
 * the pairs whose targets are their own share one, as steps.
 */
import assert from "node:assert/strict";
import { type Bridge, startBridge, withSimulator } from "./harness.ts";
import { type Env, failsWith, listenedPort, succeeds } from "./receipt_steps.ts";
import type { SimulatorOptions } from "../../src/simulator/mod.ts";

type Data = Record<string, unknown>;

async function session(
  body: (bridge: Bridge, env: Env) => Promise<void>,
  options: Partial<SimulatorOptions> = {},
): Promise<void> {
  const env = await withSimulator(options);
  // The receipt flow itself: `auto` (a person's opt-in) lets this client, which cannot ask,
  // execute as a host's own tool prompt would; the default's question is approval_test's.
  const bridge = await startBridge({
    socketPath: env.socketPath,
    serveArgs: ["--approval", "auto"],
  });
  try {
    await body(bridge, env);
  } finally {
    await bridge.close();
    await env.cleanup();
  }
}

/** A call that must succeed: its data, and a preview's summary for a person (else ""). */
async function ok(bridge: Bridge, name: string, args: Data): Promise<{ data: Data; text: string }> {
  const { data } = await succeeds(bridge, name, args);
  return { data, text: typeof data.summary === "string" ? data.summary : "" };
}

const fails = failsWith;

/** An idle sticky claim: acquire a lease, then abandon it. */
async function idleClaim(bridge: Bridge, workspaceRoot: string, component = "api"): Promise<Data> {
  const { data } = await ok(bridge, "portreeve_lease_acquire", {
    claim: { project: "web", workspaceRoot, component },
  });
  await ok(bridge, "portreeve_lease_abandon", {
    credentialHandle: data.credentialHandle,
    reason: "client-cancelled",
  });
  return data;
}

const definition = (components: string[]) => ({
  version: 1,
  project: "shop",
  components: Object.fromEntries(components.map((c) => [c, { endpoints: { http: {} } }])),
});

/**
 * The pairs whose targets are their own (a port, a claim, a stack root, the settings), as the
 * steps of one bridge and daemon, each looking only at what it caused; settings last, as they
 * are the daemon's own. The prunes, which act on every record of their kind, and the cases that
 * need a daemon of their own each run alone.
 */
Deno.test("consequential pairs, each with a target of its own, on one bridge", async (t) => {
  await session(async (bridge, env) => {
    await t.step("port reclaim: preview, wrong port, execute, replay", async () => {
      const port = await listenedPort(bridge, env);

      const preview = await ok(bridge, "portreeve_port_reclaim_preview", {
        port,
        policy: "graceful",
      });
      assert.equal(preview.data.action, "port.reclaim");
      assert.deepEqual(preview.data.target, { type: "port", id: String(port) });
      assert.equal(preview.data.blockers, undefined, "no blockers: none written");
      assert.equal((preview.data.observed as Data).outcome, "would-terminate");
      assert.match(
        preview.text,
        new RegExp(`Reclaim port ${port} with graceful: would terminate pid 4242 \\(node\\)`),
      );
      // Every host shows the data (or its JSON): the approval step is there, said once.
      assert.match(
        preview.data.nextStep as string,
        /^Show the user this preview; .*call portreeve_port_reclaim_execute with its receiptId\.$/,
      );
      assert.match(String(preview.data.receiptId), /^[0-9a-f-]{36}$/);
      assert.match(String(preview.data.expiresAt), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
      assert.doesNotMatch(preview.data.summary as string, /Receipt/);
      const receiptId = preview.data.receiptId;

      const wrong = await fails(bridge, "portreeve_port_reclaim_execute", {
        receiptId,
        port: port + 1,
      }, "portreeve_conflict");
      assert.equal(wrong.details.receiptCode, "receipt_mismatch");
      assert.match(wrong.nextStep, /preview again/);

      const done = await ok(bridge, "portreeve_port_reclaim_execute", { receiptId, port });
      assert.equal(done.data.changed, true);
      assert.equal(done.data.replayed, false);
      assert.equal((done.data.result as Data).outcome, "terminated");

      const again = await ok(bridge, "portreeve_port_reclaim_execute", { receiptId, port });
      assert.equal(again.data.replayed, true);
      assert.equal(again.data.changed, false);
      assert.equal((again.data.result as Data).outcome, "terminated");
    });

    await t.step(
      "claim reassign and delete: bad input, wrong target, unknown receipt, execute, replay",
      async () => {
        const lease = await idleClaim(bridge, env.dir);
        const claimId = lease.claimId as string;
        const before = env.sim.requests.length;

        const both = await fails(bridge, "portreeve_claim_reassign_preview", {
          claimId,
          preferredPort: 43123,
          exactPort: 43124,
        }, "portreeve_invalid_input");
        assert.match(both.message, /mutually exclusive/);
        assert.ok(
          !env.sim.requests.slice(before).some((r) => r.path.includes("/reassign/")),
          "rejected before the daemon",
        );

        const preview = await ok(bridge, "portreeve_claim_reassign_preview", {
          claimId,
          preferredPort: 43123,
        });
        assert.equal((preview.data.observed as Data).port, 43123);
        assert.match(
          preview.text,
          /^Move claim web api\.default in \S+ \(claim [0-9a-f-]{36}(, port \d+)?\) to port 43123\./,
        );

        const other = crypto.randomUUID();
        const wrong = await fails(bridge, "portreeve_claim_reassign_execute", {
          receiptId: preview.data.receiptId,
          claimId: other,
        }, "portreeve_conflict");
        assert.equal(wrong.details.receiptCode, "receipt_mismatch");

        const unknown = await fails(bridge, "portreeve_claim_reassign_execute", {
          receiptId: crypto.randomUUID(),
          claimId,
        }, "portreeve_not_found");
        assert.equal(unknown.details.receiptCode, "not_found");

        const moved = await ok(bridge, "portreeve_claim_reassign_execute", {
          receiptId: preview.data.receiptId,
          claimId,
        });
        // Compact: an absent assignedPort is the claim's preferredPort (the instructions say so).
        const claim = moved.data.result as Data;
        assert.equal(claim.assignedPort ?? claim.preferredPort, 43123);
        assert.equal((moved.data.result as Data).id, claimId);

        const del = await ok(bridge, "portreeve_claim_delete_preview", { claimId });
        assert.equal(del.data.action, "claim.delete");
        const deleted = await ok(bridge, "portreeve_claim_delete_execute", {
          receiptId: del.data.receiptId,
          claimId,
        });
        assert.deepEqual(deleted.data.result, { deleted: true, claimId });
        const replay = await ok(bridge, "portreeve_claim_delete_execute", {
          receiptId: del.data.receiptId,
          claimId,
        });
        assert.equal(replay.data.replayed, true);
        assert.equal(replay.data.changed, false);
        assert.equal(env.sim.control.state.claims.has(claimId), false);
      },
    );

    await t.step(
      "stack apply: relative root refused, create, replay, external edit invalidates the receipt",
      async () => {
        const root = `${env.dir}/shop`;
        await Deno.mkdir(root);
        const file = `${root}/portreeve.stack.json`;

        const relative = await fails(bridge, "portreeve_stack_apply_preview", {
          stackRoot: "shop",
          definition: definition(["web"]),
        }, "portreeve_invalid_input");
        assert.match(relative.message, /absolute path/);

        const preview = await ok(bridge, "portreeve_stack_apply_preview", {
          stackRoot: root,
          definition: definition(["web"]),
        });
        assert.match(preview.text, /^Create .*portreeve\.stack\.json and register a new stack/);
        assert.deepEqual(preview.data.target, { type: "stack-root", id: root });

        const created = await ok(bridge, "portreeve_stack_apply_execute", {
          receiptId: preview.data.receiptId,
          stackRoot: root,
        });
        const result = created.data.result as {
          applied: boolean;
          path: string;
          fingerprint: string;
          stack: { id: string };
        };
        assert.equal(result.applied, true);
        assert.equal(result.path, `${await Deno.realPath(root)}/portreeve.stack.json`);
        assert.match(result.fingerprint, /^[a-f0-9]{64}$/);
        assert.ok(env.sim.control.state.stacks.has(result.stack.id));
        assert.equal(JSON.parse(await Deno.readTextFile(file)).project, "shop");

        const replay = await ok(bridge, "portreeve_stack_apply_execute", {
          receiptId: preview.data.receiptId,
          stackRoot: root,
        });
        assert.equal(replay.data.replayed, true);

        // Byte-identical stackRoot: the same directory spelt differently is another target.
        const update = await ok(bridge, "portreeve_stack_apply_preview", {
          stackRoot: `${root}/`,
          definition: definition(["web", "db"]),
        });
        assert.match(update.text, new RegExp(`^Replace .* and update stack ${result.stack.id}`));
        const spelt = await fails(bridge, "portreeve_stack_apply_execute", {
          receiptId: update.data.receiptId,
          stackRoot: root,
        }, "portreeve_conflict");
        assert.equal(spelt.details.receiptCode, "receipt_mismatch");
        assert.match(spelt.nextStep, /send the target exactly as the preview had it/);

        await Deno.writeTextFile(file, JSON.stringify(definition(["edited"]), null, 2) + "\n");
        const edited = await fails(bridge, "portreeve_stack_apply_execute", {
          receiptId: update.data.receiptId,
          stackRoot: `${root}/`,
        }, "portreeve_conflict");
        assert.ok(
          edited.details.documentCode === "stack_definition_changed" ||
            edited.details.receiptCode === "receipt_mismatch",
          JSON.stringify(edited.details),
        );
        assert.equal(
          JSON.parse(await Deno.readTextFile(file)).components.edited !== undefined,
          true,
          "file kept",
        );
      },
    );

    await t.step(
      "settings update: schema rejections, daemon range check, drift, execute, replay",
      async () => {
        const before = env.sim.requests.length;
        const unsupported = await fails(bridge, "portreeve_settings_update_preview", {
          updates: { socketPath: "/tmp/x" },
        }, "portreeve_invalid_input");
        assert.equal(
          unsupported.message,
          "updates: unsupported setting(s) socketPath; only automaticPortRanges, excludedPorts, leaseTtlMilliseconds, ephemeralAssignmentTtlMilliseconds, gracefulShutdownMilliseconds, historyMaximumEvents, diagnosticLogMaximumBytes, diagnosticLogFiles can be changed.",
          "said once, without a contradicting 'name at least one setting'",
        );
        await fails(
          bridge,
          "portreeve_settings_update_preview",
          { updates: {} },
          "portreeve_invalid_input",
        );
        assert.ok(
          !env.sim.requests.slice(before).some((r) => r.path.startsWith("/v1/actions/settings")),
          "rejected before the daemon",
        );

        const range = await fails(bridge, "portreeve_settings_update_preview", {
          updates: { leaseTtlMilliseconds: 5 },
        }, "portreeve_invalid_input");
        assert.ok(range.message.length > 0);

        const a = await ok(bridge, "portreeve_settings_update_preview", {
          updates: { leaseTtlMilliseconds: 20_000 },
        });
        assert.match(a.text, /^Change leaseTtlMilliseconds 15000 → 20000\./);
        const b = await ok(bridge, "portreeve_settings_update_preview", {
          updates: { gracefulShutdownMilliseconds: 200 },
        });

        const applied = await ok(bridge, "portreeve_settings_update_execute", {
          receiptId: b.data.receiptId,
        });
        assert.equal(
          ((applied.data.result as Data).settings as Data).gracefulShutdownMilliseconds,
          200,
        );
        const stale = await fails(bridge, "portreeve_settings_update_execute", {
          receiptId: a.data.receiptId,
        }, "portreeve_conflict");
        assert.equal(stale.details.receiptCode, "receipt_mismatch");

        const replay = await ok(bridge, "portreeve_settings_update_execute", {
          receiptId: b.data.receiptId,
        });
        assert.equal(replay.data.replayed, true);
        const current = await ok(bridge, "portreeve_settings_get", {});
        assert.equal(current.data.gracefulShutdownMilliseconds, 200);
        assert.equal(current.data.leaseTtlMilliseconds, 15_000);
      },
    );
  });
});

Deno.test("port reclaim: an unowned listener is a blocker; drifted evidence is a mismatch", async () => {
  await session(async (bridge, env) => {
    env.sim.control.addListener(45001, 5000, { command: "python" });
    const preview = await ok(bridge, "portreeve_port_reclaim_preview", {
      port: 45001,
      policy: "force-after-grace",
    });
    assert.deepEqual(preview.data.blockers, ["ownership-unverified"]);
    assert.match(preview.text, /Blocked: ownership-unverified/);
    // The daemon would refuse it: nothing to approve, and its execute sends nothing.
    assert.equal(preview.data.approval ?? null, null);
    const before = env.sim.requests.length;
    const refused = await fails(bridge, "portreeve_port_reclaim_execute", {
      receiptId: preview.data.receiptId,
      port: 45001,
    }, "portreeve_conflict");
    assert.equal(refused.details.reason, "preview_refused");
    assert.equal(env.sim.requests.length, before);

    // A reclaim the daemon would do, whose evidence drifts before the execute.
    const port = await listenedPort(bridge, env);
    const owned = await ok(bridge, "portreeve_port_reclaim_preview", { port, policy: "graceful" });
    env.sim.control.addListener(port, 5001, { command: "python" });
    const stale = await fails(bridge, "portreeve_port_reclaim_execute", {
      receiptId: owned.data.receiptId,
      port,
    }, "portreeve_conflict");
    assert.equal(stale.details.receiptCode, "receipt_mismatch");
  });
});

Deno.test("port reclaim: a real loopback listener not owned by PortReeve is refused, never signalled", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  try {
    await session(async (bridge) => {
      const preview = await ok(bridge, "portreeve_port_reclaim_preview", {
        port,
        policy: "graceful",
      });
      const observed = preview.data.observed as { outcome: string; targets: { pid: number }[] };
      assert.equal(observed.outcome, "refused");
      assert.ok(
        observed.targets.some((t) => t.pid === Deno.pid),
        "the test's own listener is the evidence",
      );
      assert.deepEqual(preview.data.blockers, ["ownership-unverified"]);
      // The preview says the daemon would refuse: the execute is refused before it.
      const refused = await fails(bridge, "portreeve_port_reclaim_execute", {
        receiptId: preview.data.receiptId,
        port,
      }, "portreeve_conflict");
      assert.equal(refused.details.reason, "preview_refused");
      assert.match(refused.message, /nothing was sent to the daemon/);
    }, { observeHost: true });
  } finally {
    listener.close();
  }
});

Deno.test("claims prune: an expired receipt is refused; a fresh one prunes", async () => {
  await session(async (bridge, env) => {
    const workspace = `${env.dir}/worktree`;
    await Deno.mkdir(workspace);
    const lease = await idleClaim(bridge, workspace);
    await Deno.remove(workspace);

    const first = await ok(bridge, "portreeve_claims_prune_preview", { olderThanMilliseconds: 0 });
    assert.match(first.text, /^Delete 1 claim\(s\) whose workspace is gone: web api\.default/);
    env.sim.control.advance(6 * 60_000);
    const expired = await fails(bridge, "portreeve_claims_prune_execute", {
      receiptId: first.data.receiptId,
    }, "portreeve_conflict");
    assert.equal(expired.details.receiptCode, "receipt_expired");
    assert.match(expired.nextStep, /5 minutes/);

    const second = await ok(bridge, "portreeve_claims_prune_preview", { olderThanMilliseconds: 0 });
    const done = await ok(bridge, "portreeve_claims_prune_execute", {
      receiptId: second.data.receiptId,
    });
    assert.deepEqual((done.data.result as Data).deletedClaimIds, [lease.claimId]);
  });
});

Deno.test("stacks prune: a stack whose root is gone is pruned with its claims", async () => {
  await session(async (bridge, env) => {
    const root = `${env.dir}/gone`;
    await Deno.mkdir(root);
    const preview = await ok(bridge, "portreeve_stack_apply_preview", {
      stackRoot: root,
      definition: definition(["web"]),
    });
    const applied = await ok(bridge, "portreeve_stack_apply_execute", {
      receiptId: preview.data.receiptId,
      stackRoot: root,
    });
    const stackId = ((applied.data.result as Data).stack as Data).id;
    await Deno.remove(root, { recursive: true });

    const prune = await ok(bridge, "portreeve_stacks_prune_preview", { olderThanMilliseconds: 0 });
    assert.match(
      prune.text,
      /^Delete 1 stack\(s\) whose root is gone, with 1 claim\(s\): shop at /,
    );
    assert.equal(prune.data.blockers, undefined, "no blockers: none written");
    const done = await ok(bridge, "portreeve_stacks_prune_execute", {
      receiptId: prune.data.receiptId,
    });
    assert.deepEqual((done.data.result as Data).deletedStackIds, [stackId]);
  });
});
