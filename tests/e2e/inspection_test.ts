/**
 * The read-only catalogue end to end: every inspection tool through the real `serve`
 * process over stdio against the simulator, with pagination, filters, not-found, invalid
 * input and daemon-down behaviour.
 */
import assert from "node:assert/strict";
import { type Bridge, call, startBridge, withSimulator } from "./harness.ts";
import { seedClaim, seeder, TWO_COMPONENT_STACK } from "./seed.ts";

type Data = Record<string, unknown>;
/** A compact page: values every item shares are stated once, in everyItem. */
type PageData = { items: Data[]; everyItem?: Data; page: { nextCursor?: string } };

async function ok(bridge: Bridge, tool: string, args: Data = {}): Promise<Data> {
  const r = await call(bridge, tool, args);
  assert.equal(r.isError, false, `${tool}: ${r.text}`);
  assert.equal(r.envelope.ok, true);
  return r.envelope.data!;
}

async function fails(bridge: Bridge, tool: string, args: Data, code: string): Promise<string> {
  const r = await call(bridge, tool, args);
  assert.equal(r.isError, true, `${tool} should fail: ${r.text}`);
  assert.equal(r.envelope.ok, false);
  assert.equal(r.envelope.error?.code, code, `${tool}: ${r.text}`);
  return r.envelope.error!.message;
}

/** Walks every page with `limit`, asserting the cursor advances and is omitted at the end. */
async function walk(
  bridge: Bridge,
  tool: string,
  args: Data,
  limit: number,
): Promise<{ items: Data[]; pages: number }> {
  const items: Data[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await ok(bridge, tool, {
      ...args,
      limit,
      ...(cursor ? { afterCursor: cursor } : {}),
    }) as PageData;
    assert.ok(page.items.length <= limit);
    assert.notEqual(page.page.nextCursor, cursor, "cursor advances");
    if (page.page.nextCursor !== undefined) assert.ok(page.page.nextCursor.length > 0);
    // Each item whole again: what every item of the page shares is stated once, in everyItem.
    items.push(...page.items.map((item) => ({ ...page.everyItem, ...item })));
    cursor = page.page.nextCursor;
    pages++;
  } while (cursor);
  return { items, pages };
}

Deno.test("inspection catalogue end to end", async (t) => {
  const env = await withSimulator();
  const seed = seeder(env.socketPath);
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-ws-" }));
  const stackRoot = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-stack-" }));
  let bridge: Bridge | undefined;
  try {
    for (const c of ["c1", "c2", "c3", "c4", "c5"]) await seedClaim(seed, "alpha", workspace, c);
    await seedClaim(seed, "beta", workspace, "solo");
    for (const port of [41001, 41002, 41003]) {
      env.sim.control.addListener(port, 50_000 + port, { command: "node" });
    }
    const { stack } = await seed.post("/v1/stacks/apply", {
      stackRoot,
      definition: TWO_COMPONENT_STACK,
    }) as {
      stack: { id: string };
    };
    const { generation } = await seed.post(`/v1/stacks/${stack.id}/prepare`) as {
      generation: { id: string };
    };
    const begun = await seed.post("/v1/stack-activations/begin", {
      generationId: generation.id,
    }) as {
      activation: { id: string };
    };
    for (let i = 0; i < 3; i++) {
      const op = await seed.post("/v1/launcher-operations/begin", {
        stackId: stack.id,
        operation: "status",
        launcherRevision: "a".repeat(64),
        callerOperationId: crypto.randomUUID(),
      }) as { operation: { id: string }; credential: string };
      await seed.post(`/v1/launcher-operations/${op.operation.id}/complete`, {
        credential: op.credential,
        completion: { outcome: "succeeded", exitCode: 0 },
      });
    }

    bridge = await startBridge({ socketPath: env.socketPath });
    const b = bridge;

    await t.step("ports_list pages across three pages and honours each filter", async () => {
      const all = await walk(b, "portreeve_ports_list", {}, 2);
      assert.ok(all.pages >= 3, `pages: ${all.pages}`);
      const ports = all.items.map((e) => e.port as number);
      assert.deepEqual(ports, [...ports].sort((x, y) => x - y));
      assert.equal(new Set(ports).size, ports.length, "no item twice");
      const unclaimed = await ok(b, "portreeve_ports_list", {
        classification: "unclaimed",
      }) as PageData;
      assert.deepEqual(unclaimed.items.map((e) => e.port), [41001, 41002, 41003]);
      const listening = await ok(b, "portreeve_ports_list", { listening: true }) as PageData;
      assert.ok(listening.items.every((e) => (e.listeners as unknown[]).length > 0));
      // Abandoned standalone leases leave no assignment; the prepared stack's two endpoints do.
      const claimed = await ok(b, "portreeve_ports_list", {
        claimed: true,
        project: "shop",
      }) as PageData;
      assert.equal(claimed.items.length, 2);
      assert.equal(
        (await ok(b, "portreeve_ports_list", { claimed: true, project: "alpha" }) as PageData).items
          .length,
        0,
      );
      const one = await ok(b, "portreeve_ports_list", { port: 41002 }) as PageData;
      assert.equal(one.items.length, 1);
      const ws = await ok(b, "portreeve_ports_list", {
        workspace: stackRoot,
        component: "api",
        endpoint: "http",
      }) as PageData;
      assert.equal(ws.items.length, 1);
    });

    await t.step(
      "cursors: malformed, foreign and other-filter cursors are invalid input",
      async () => {
        const first = await ok(b, "portreeve_ports_list", { limit: 1 }) as PageData;
        const cursor = first.page.nextCursor!;
        await fails(
          b,
          "portreeve_ports_list",
          { afterCursor: "not-a-cursor" },
          "portreeve_invalid_input",
        );
        await fails(b, "portreeve_claims_list", { afterCursor: cursor }, "portreeve_invalid_input");
        const message = await fails(b, "portreeve_ports_list", {
          afterCursor: cursor,
          claimed: true,
        }, "portreeve_invalid_input");
        assert.match(message, /another listing or other filters/);
        await fails(
          b,
          "portreeve_history_list",
          { afterCursor: cursor },
          "portreeve_invalid_input",
        );
      },
    );

    await t.step("port_inspect: known and unknown ports; out of range is invalid", async () => {
      const known = await ok(b, "portreeve_port_inspect", { port: 41001 });
      assert.equal(known.classification, "unclaimed");
      const free = await ok(b, "portreeve_port_inspect", { port: 40999 });
      assert.equal(free.classification, "available");
      await fails(b, "portreeve_port_inspect", { port: 70000 }, "portreeve_invalid_input");
    });

    await t.step("claims_list / claim_get: pages, filters, not found, relative roots", async () => {
      const all = await walk(b, "portreeve_claims_list", {}, 2);
      assert.equal(all.items.length, 6 + 2, "six standalone claims and two stack endpoint claims");
      assert.ok(all.pages >= 3);
      const alpha = await ok(b, "portreeve_claims_list", {
        project: "alpha",
        component: "c2",
      }) as PageData;
      assert.equal(alpha.items.length, 1);
      const byRoot = await ok(b, "portreeve_claims_list", {
        workspaceRoot: workspace,
        endpoint: "http",
      }) as PageData;
      assert.equal(byRoot.items.length, 6);
      const message = await fails(
        b,
        "portreeve_claims_list",
        { workspaceRoot: "relative/dir" },
        "portreeve_invalid_input",
      );
      assert.match(message, /absolute path/);
      const claim = await ok(b, "portreeve_claim_get", {
        id: (alpha.items[0] as { id: string }).id,
      });
      assert.equal((claim.identity as Data).component, "c2");
      await fails(b, "portreeve_claim_get", { id: crypto.randomUUID() }, "portreeve_not_found");
      await fails(b, "portreeve_claim_get", { id: "nope" }, "portreeve_invalid_input");
    });

    await t.step("stacks, documents, validation and status", async () => {
      const stacks = await ok(b, "portreeve_stacks_list", { stackRoot }) as PageData;
      assert.equal(stacks.items.length, 1);
      assert.equal(
        (await ok(b, "portreeve_stacks_list", { project: "nothing" }) as PageData).items.length,
        0,
      );
      await fails(b, "portreeve_stacks_list", { stackRoot: "" }, "portreeve_invalid_input");
      const got = await ok(b, "portreeve_stack_get", { id: stack.id });
      assert.equal(got.project, "shop");
      await fails(b, "portreeve_stack_get", { id: crypto.randomUUID() }, "portreeve_not_found");
      const doc = await ok(b, "portreeve_stack_document_get", { stackRoot });
      assert.equal(doc.kind, "missing");
      await fails(
        b,
        "portreeve_stack_document_get",
        { stackRoot: "./here" },
        "portreeve_invalid_input",
      );
      const valid = await ok(b, "portreeve_stack_definition_validate", {
        definition: TWO_COMPONENT_STACK,
      });
      assert.equal(valid.valid, true);
      assert.match(valid.revision as string, /^[a-f0-9]{64}$/);
      const broken = await ok(b, "portreeve_stack_definition_validate", {
        definition: {
          version: 1,
          project: "x",
          components: { web: { dependencies: { d: { component: "ghost" } } } },
        },
      });
      assert.equal(broken.valid, false);
      assert.ok((broken.issues as unknown[]).length > 0);
      // Definitions of the wrong shape are the daemon's to judge: its verdict comes back.
      const validations = () =>
        env.sim.requests.filter((r) => r.path === "/v1/actions/stack-definition/validate").length;
      const before = validations();
      for (
        const definition of [
          { version: 2 },
          "a string",
          null,
          [1, 2],
          { ...TWO_COMPONENT_STACK, unknownKey: true },
        ]
      ) {
        const verdict = await ok(b, "portreeve_stack_definition_validate", { definition });
        assert.equal(verdict.valid, false, JSON.stringify(definition));
        assert.equal(
          verdict.definition ?? null,
          null,
          "no normalised definition (absent means null)",
        );
        assert.ok((verdict.issues as unknown[]).length > 0, JSON.stringify(definition));
      }
      assert.equal(validations() - before, 5, "every definition reached the daemon");
      await fails(b, "portreeve_stack_definition_validate", {}, "portreeve_invalid_input");
      await fails(
        b,
        "portreeve_stack_definition_validate",
        { definition: {}, extra: 1 },
        "portreeve_invalid_input",
      );
      assert.equal(validations() - before, 5, "malformed arguments never reach the daemon");
      const status = await ok(b, "portreeve_stack_status", { stackId: stack.id });
      assert.equal((status.activation as Data).state, "starting");
    });

    await t.step("generations, activations, resolve and snapshot", async () => {
      const gens = await ok(b, "portreeve_generations_list", {
        stackId: stack.id,
        state: "valid",
      }) as PageData;
      assert.equal(gens.items.length, 1);
      const gen = await ok(b, "portreeve_generation_get", { id: generation.id });
      assert.equal((gen.endpoints as unknown[]).length, 2);
      await fails(
        b,
        "portreeve_generation_get",
        { id: crypto.randomUUID() },
        "portreeve_not_found",
      );
      const acts = await ok(b, "portreeve_activations_list", {
        stackId: stack.id,
        state: "starting",
      }) as PageData;
      assert.equal(acts.items.length, 1);
      assert.equal(
        (await ok(b, "portreeve_activations_list", { state: "ended" }) as PageData).items.length,
        0,
      );
      const byGeneration = await ok(b, "portreeve_activations_list", {
        generationId: generation.id,
      }) as PageData;
      assert.equal(byGeneration.items.length, 1);
      const elsewhere = await ok(b, "portreeve_activations_list", {
        generationId: crypto.randomUUID(),
      }) as PageData;
      assert.equal(elsewhere.items.length, 0);
      const act = await ok(b, "portreeve_activation_get", { id: begun.activation.id });
      assert.ok(!JSON.stringify(act).includes("leaseToken"), "no tokens in activation reads");
      const resolved = await ok(b, "portreeve_activation_resolve", {
        activationId: begun.activation.id,
        component: "web",
      });
      assert.ok((resolved.dependencies as Data).backend);
      const snap = await ok(b, "portreeve_stack_snapshot", {
        activationId: begun.activation.id,
        component: "web",
        gatewayHost: "host.docker.internal",
      });
      assert.equal(
        (snap.own as Record<string, { address: { host: string } }>).http.address.host,
        "host.docker.internal",
      );
      await fails(b, "portreeve_stack_snapshot", {
        activationId: begun.activation.id,
        component: "web",
        gatewayHost: "bad host",
      }, "portreeve_invalid_input");
      await fails(b, "portreeve_activation_resolve", {
        activationId: begun.activation.id,
        component: "ghost",
      }, "portreeve_not_found");
    });

    await t.step("launcher operations and history page", async () => {
      const ops = await walk(b, "portreeve_launcher_operations_list", { stackId: stack.id }, 1);
      assert.equal(ops.items.length, 3);
      assert.equal(ops.pages, 3);
      const op = await ok(b, "portreeve_launcher_operation_get", {
        operationId: ops.items[0].id as string,
      });
      assert.equal(op.outcome, "succeeded");
      assert.ok(!JSON.stringify(op).includes("credential"));
      await fails(
        b,
        "portreeve_launcher_operations_list",
        { stackId: stack.id, limit: 21 },
        "portreeve_invalid_input",
      );
      const history = await walk(
        b,
        "portreeve_history_list",
        { entityType: "launcher-operation" },
        2,
      );
      assert.ok(history.pages >= 3);
      const times = history.items.map((e) => e.occurredAt as string);
      assert.deepEqual(times, [...times].sort().reverse(), "newest first");
      const recent = await ok(b, "portreeve_history_list", {
        eventType: "claim.created",
        limit: 200,
      }) as PageData;
      assert.equal(recent.items.length, 8);
      const one = recent.items[0] as { entityId: string; occurredAt: string };
      const byEntity = await ok(b, "portreeve_history_list", {
        entityId: one.entityId,
        eventType: "claim.created",
      }) as PageData;
      assert.equal(byEntity.items.length, 1);
      const future = await ok(b, "portreeve_history_list", {
        since: "2999-01-01T00:00:00.000Z",
      }) as PageData;
      assert.equal(future.items.length, 0);
      const since = await ok(b, "portreeve_history_list", {
        since: one.occurredAt,
        limit: 200,
      }) as PageData;
      assert.ok(since.items.every((e) => (e.occurredAt as string) >= one.occurredAt));
      // The daemon's history cursor ignores filters; the bridge binds it to them.
      const firstPage = await ok(b, "portreeve_history_list", {
        eventType: "claim.created",
        limit: 2,
      }) as PageData;
      const historyCursor = firstPage.page.nextCursor!;
      const next = await ok(b, "portreeve_history_list", {
        eventType: "claim.created",
        limit: 2,
        afterCursor: historyCursor,
      }) as PageData;
      // Compared by id: a compact page writes a shared value once, so items differ by page.
      const ids = (items: Record<string, unknown>[]) => items.map((e) => e.id);
      assert.deepEqual(ids(next.items), ids(recent.items.slice(2, 4)), "the same filters continue");
      const others = [
        { eventType: "lease.acquired" },
        {},
        { eventType: "claim.created", entityType: "claim" },
      ];
      for (const other of others) {
        const refused = await fails(b, "portreeve_history_list", {
          ...other,
          limit: 2,
          afterCursor: historyCursor,
        }, "portreeve_invalid_input");
        assert.match(refused, /another listing or other filters/);
      }
      await fails(b, "portreeve_history_list", { since: "yesterday" }, "portreeve_invalid_input");
      await fails(b, "portreeve_ports_list", { limit: 201 }, "portreeve_invalid_input");
    });

    await t.step(
      "daemon down: every daemon-backed read is portreeve_unavailable, retryable",
      async () => {
        await env.sim.close();
        for (
          const [tool, args] of [
            ["portreeve_health", {}],
            ["portreeve_ports_list", {}],
            ["portreeve_claim_get", { id: crypto.randomUUID() }],
            ["portreeve_stack_status", { stackId: stack.id }],
            ["portreeve_history_list", {}],
          ] as const
        ) {
          const r = await call(b, tool, args);
          assert.equal(r.isError, true);
          assert.equal(r.envelope.error?.code, "portreeve_unavailable", tool);
          assert.equal(r.envelope.error?.retryable, true);
        }
        const diag = await ok(b, "portreeve_diagnostics");
        assert.equal((diag.daemon as Data).available, false);
        await env.sim.restart();
        await ok(b, "portreeve_ports_list");
      },
    );
  } finally {
    await bridge?.close();
    seed.close();
    await env.cleanup();
    await Deno.remove(workspace, { recursive: true });
    await Deno.remove(stackRoot, { recursive: true });
  }
});
