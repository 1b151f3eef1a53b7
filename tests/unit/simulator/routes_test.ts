// Behaviour of the simulator's mutation routes: leases, stacks, activations, launcher, receipts.
import assert from "node:assert/strict";
import { harness } from "../../support/simulator_harness.ts";

const STACK = {
  version: 1,
  project: "shop",
  components: {
    api: { endpoints: { http: { allocation: { preferredPort: 18180 } } } },
    web: {
      endpoints: { http: { allocation: { preferredPort: 18181 } } },
      dependencies: { backend: { component: "api", endpoint: "http" } },
    },
  },
};

function acquireBody(workspaceRoot: string, extra: Record<string, unknown> = {}) {
  return {
    claim: { project: "p", workspaceRoot, component: "api", endpoint: "http", transport: "tcp" },
    allocation: { mode: "sticky", replacementPolicy: "never", ...extra },
  };
}

Deno.test("simulator leases: acquire, pending conflict, expiry, confirm ownership, release", async () => {
  const h = await harness();
  try {
    const a = await h.post("/v1/leases/acquire", acquireBody(h.dir, { preferredPort: 18080 }));
    assert.equal(a.status, 200);
    assert.equal(a.body.data.port, 18080);
    assert.match(a.body.data.leaseToken, /^[A-Za-z0-9_-]{43}$/);
    const again = await h.post("/v1/leases/acquire", acquireBody(h.dir));
    assert.equal(again.status, 409);
    assert.equal(again.body.error.details.reason, "claim_pending");
    assert.equal(again.body.error.retryable, true);
    const leaseId = a.body.data.leaseId;
    const bad = await h.post(`/v1/leases/${leaseId}/renew`, { leaseToken: "x".repeat(43) });
    assert.equal(bad.body.error.code, "invalid_lease_token");
    // No listener yet: confirm is refused.
    const early = await h.post(`/v1/leases/${leaseId}/confirm`, {
      leaseToken: a.body.data.leaseToken,
      rootPid: 4242,
    });
    assert.equal(early.status, 409);
    h.sim.control.addListener(18080, 4243, { ppid: 4242 });
    h.sim.control.addListener(18080, 9999, { ppid: 1 });
    const foreign = await h.post(`/v1/leases/${leaseId}/confirm`, {
      leaseToken: a.body.data.leaseToken,
      rootPid: 4242,
    });
    assert.equal(foreign.status, 409);
    assert.deepEqual(Object.keys(foreign.body.error.details).sort(), [
      "listeners",
      "ownership",
      "port",
      "rootPid",
    ]);
    h.sim.control.removeListener(18080, 9999);
    const ok = await h.post(`/v1/leases/${leaseId}/confirm`, {
      leaseToken: a.body.data.leaseToken,
      rootPid: 4242,
    });
    assert.equal(ok.status, 200);
    const inspect = await h.get("/v1/ports/18080");
    assert.equal(inspect.body.data.classification, "verified");
    assert.deepEqual(inspect.body.data.listeners[0].ownership.lineage, [4243, 4242]);
    const replay = await h.post(`/v1/leases/${leaseId}/confirm`, {
      leaseToken: a.body.data.leaseToken,
      rootPid: 4242,
    });
    assert.equal(replay.body.error.code, "lease_not_pending");
    const runId = ok.body.data.runId;
    assert.equal((await h.post(`/v1/runs/${runId}/release`)).body.data.changed, true);
    assert.equal((await h.post(`/v1/runs/${runId}/release`)).body.data.changed, false);
    assert.equal((await h.get("/v1/ports/18080")).body.data.classification, "conflicting");
    // Expiry on the simulator clock.
    const b = await h.post("/v1/leases/acquire", {
      ...acquireBody(h.dir),
      claim: { ...acquireBody(h.dir).claim, component: "worker" },
    });
    h.sim.control.advance(16_000);
    // Listener evidence is checked before the lease itself, so give the port an owner.
    h.sim.control.addListener(b.body.data.port, 4300);
    const late = await h.post(`/v1/leases/${b.body.data.leaseId}/confirm`, {
      leaseToken: b.body.data.leaseToken,
      rootPid: 4300,
    });
    assert.equal(late.body.error.code, "lease_expired");
    const renewLate = await h.post(`/v1/leases/${b.body.data.leaseId}/renew`, {
      leaseToken: b.body.data.leaseToken,
    });
    assert.equal(renewLate.body.error.code, "lease_not_pending");
    const events = await h.get("/v1/history?eventType=lease.expired");
    assert.equal(events.body.data.items[0].origin, null);
  } finally {
    await h.close();
  }
});

Deno.test("simulator confirms a real loopback listener through /proc", async () => {
  if (Deno.build.os !== "linux") return;
  const h = await harness({ observeHost: true });
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const port = (listener.addr as Deno.NetAddr).port;
    const a = await h.post("/v1/leases/acquire", acquireBody(h.dir, { exactPort: port }));
    // The exact port already has a listener (ours): the daemon refuses it.
    assert.equal(a.status, 409, JSON.stringify(a.body));
    assert.deepEqual(a.body.error.details, { port });
    const b = await h.post("/v1/leases/acquire", acquireBody(`${h.dir}/x`));
    assert.equal(b.status, 200);
    const own = Deno.listen({ hostname: "127.0.0.1", port: b.body.data.port });
    try {
      const ok = await h.post(`/v1/leases/${b.body.data.leaseId}/confirm`, {
        leaseToken: b.body.data.leaseToken,
        rootPid: Deno.pid,
      });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      const entry = await h.get(`/v1/ports/${b.body.data.port}`);
      assert.equal(entry.body.data.classification, "verified");
      assert.equal(entry.body.data.listeners[0].pid, Deno.pid);
    } finally {
      own.close();
    }
  } finally {
    listener.close();
    await h.close();
  }
});

Deno.test("simulator stacks: apply, document, prepare, activation lifecycle, discovery", async () => {
  const h = await harness();
  const root = `${h.dir}/stack`;
  await Deno.mkdir(root);
  try {
    const filter = await h.get("/v1/stacks?workspaceRoot=/x");
    assert.equal(filter.body.error.details.reason, "unsupported_stack_filter");
    const missingRoot = await h.post("/v1/stacks/apply", {
      stackRoot: `${h.dir}/nope`,
      definition: STACK,
    });
    assert.equal(missingRoot.body.error.details.reason, "invalid_stack_root");
    const strict = await h.post("/v1/stacks/apply", {
      stackRoot: root,
      definition: STACK,
      extra: 1,
    });
    assert.equal(strict.status, 400);
    const applied = await h.post("/v1/stacks/apply", { stackRoot: root, definition: STACK });
    assert.equal(applied.body.data.changed, true);
    const same = await h.post("/v1/stacks/apply", { stackRoot: root, definition: STACK });
    assert.equal(same.body.data.changed, false);
    const overlap = await h.post("/v1/stacks/apply", {
      stackRoot: h.dir,
      definition: { ...STACK, project: "other" },
    });
    assert.equal(overlap.body.error.details.reason, "stack_root_overlap");
    const stackId = applied.body.data.stack.id;
    const listed = await h.get(`/v1/stacks?stackRoot=${encodeURIComponent(root)}`);
    assert.equal(listed.body.data.length, 1);
    const prep = await h.post(`/v1/stacks/${stackId}/prepare`);
    assert.equal(prep.body.data.reused, false);
    assert.deepEqual(prep.body.data.generation.endpoints.map((e: { port: number }) => e.port), [
      18180,
      18181,
    ]);
    assert.equal((await h.post(`/v1/stacks/${stackId}/prepare`)).body.data.reused, true);
    const begin = await h.post("/v1/stack-activations/begin", {
      generationId: prep.body.data.generation.id,
    });
    assert.equal(begin.status, 200);
    const activationId = begin.body.data.activation.id;
    const repeat = await h.post("/v1/stack-activations/begin", {
      generationId: prep.body.data.generation.id,
    });
    assert.equal(repeat.body.error.details.reason, "activation_live");
    const resolved = await h.post(`/v1/stack-activations/${activationId}/resolve`, {
      component: "web",
    });
    assert.equal(resolved.body.data.dependencies.backend.host.port, 18180);
    const [api, web] = begin.body.data.leases;
    const renewed = await h.post(`/v1/stack-activations/${activationId}/renew`, {
      leases: [{ leaseId: api.leaseId, leaseToken: api.leaseToken }],
    });
    assert.equal(renewed.status, 200);
    const skipRequired = await h.post(`/v1/stack-activations/${activationId}/skip`, {
      leaseId: web.leaseId,
      leaseToken: web.leaseToken,
    });
    assert.equal(skipRequired.status, 400);
    h.sim.control.addListener(18180, 500);
    h.sim.control.addListener(18181, 501);
    for (const [lease, pid] of [[api, 500], [web, 501]] as const) {
      const c = await h.post(`/v1/stack-activations/${activationId}/confirm`, {
        leaseId: lease.leaseId,
        leaseToken: lease.leaseToken,
        bindingKind: "process",
        rootPid: pid,
      });
      assert.equal(c.status, 200, JSON.stringify(c.body));
    }
    const status = await h.post(`/v1/stacks/${stackId}/status`);
    assert.equal(status.body.data.activation.state, "confirmed");
    assert.equal(status.body.data.providers.length, 2);
    const blocked = await h.post(`/v1/stack-activations/${activationId}/end`);
    assert.equal(blocked.body.error.details.reason, "listener_present");
    h.sim.control.removeListener(18180);
    h.sim.control.removeListener(18181);
    const lost = await h.post(`/v1/stack-activations/${activationId}/reconcile`);
    assert.equal(lost.body.data.changed, true);
    assert.equal(lost.body.data.activation.state, "lost");
    const ended = await h.post(`/v1/stack-activations/${activationId}/end`);
    assert.equal(ended.body.data.activation.state, "ended");
    const inactive = await h.post(`/v1/stack-activations/${activationId}/snapshot`, {
      component: "web",
      gatewayHost: "host.docker.internal",
    });
    assert.equal(inactive.body.error.details.reason, "activation_inactive");
  } finally {
    await h.close();
  }
});

Deno.test("simulator activation leases expire and fail the activation", async () => {
  const h = await harness();
  const root = `${h.dir}/stack`;
  await Deno.mkdir(root);
  try {
    const applied = await h.post("/v1/stacks/apply", { stackRoot: root, definition: STACK });
    const prep = await h.post(`/v1/stacks/${applied.body.data.stack.id}/prepare`);
    const begin = await h.post("/v1/stack-activations/begin", {
      generationId: prep.body.data.generation.id,
      bindings: { web: "docker" },
    });
    assert.equal(begin.body.error.details.reason, "docker_definition_missing");
    const ok = await h.post("/v1/stack-activations/begin", {
      generationId: prep.body.data.generation.id,
    });
    h.sim.control.advance(20_000);
    const got = await h.get(`/v1/stack-activations/${ok.body.data.activation.id}`);
    assert.equal(got.body.data.state, "failed");
    assert.equal(got.body.data.endpoints[0].failureReason, "lease-expired");
  } finally {
    await h.close();
  }
});

Deno.test("simulator launcher operations: begin, concurrency, complete, expiry", async () => {
  const h = await harness();
  const root = `${h.dir}/stack`;
  await Deno.mkdir(root);
  try {
    const stackId = (await h.post("/v1/stacks/apply", { stackRoot: root, definition: STACK })).body
      .data.stack.id;
    const base = { stackId, launcherRevision: "a".repeat(64), generationId: null };
    const attached = await h.post("/v1/launcher-operations/begin", {
      ...base,
      operation: "start",
      executionMode: "attached",
      callerOperationId: crypto.randomUUID(),
    });
    assert.equal(attached.status, 200);
    const companion = await h.post("/v1/launcher-operations/begin", {
      ...base,
      operation: "status",
      callerOperationId: crypto.randomUUID(),
    });
    assert.equal(companion.status, 200);
    const third = await h.post("/v1/launcher-operations/begin", {
      ...base,
      operation: "stop",
      callerOperationId: crypto.randomUUID(),
    });
    assert.equal(third.body.error.details.reason, "launcher_operation_active");
    const opId = companion.body.data.operation.id;
    const completion = { outcome: "succeeded", exitCode: 0 };
    const done = await h.post(`/v1/launcher-operations/${opId}/complete`, {
      credential: companion.body.data.credential,
      completion,
    });
    assert.equal(done.body.data.changed, true);
    const same = await h.post(`/v1/launcher-operations/${opId}/complete`, {
      credential: companion.body.data.credential,
      completion,
    });
    assert.equal(same.body.data.changed, false);
    const other = await h.post(`/v1/launcher-operations/${opId}/complete`, {
      credential: companion.body.data.credential,
      completion: { outcome: "failed" },
    });
    assert.equal(other.body.error.details.reason, "launcher_completion_mismatch");
    h.sim.control.advance(31_000);
    const lost = await h.get(`/v1/launcher-operations/${attached.body.data.operation.id}`);
    assert.equal(lost.body.data.outcome, "lost");
    assert.equal(lost.body.data.failure.code, "client_lost");
    const renew = await h.post(`/v1/launcher-operations/${attached.body.data.operation.id}/renew`, {
      credential: attached.body.data.credential,
    });
    assert.equal(renew.body.error.details.reason, "launcher_operation_terminal");
    assert.equal((await h.get(`/v1/stacks/${stackId}/launcher-operations?limit=21`)).status, 400);
    assert.equal((await h.get(`/v1/stacks/${stackId}/launcher-operations`)).body.data.length, 2);
  } finally {
    await h.close();
  }
});

Deno.test("simulator receipts: stack apply writes the file, replays, expires, detects edits", async () => {
  const h = await harness();
  const root = `${h.dir}/stack`;
  await Deno.mkdir(root);
  try {
    const invalid = await h.post("/v1/actions/stacks/apply/preview", {
      stackRoot: root,
      definition: { version: 1 },
    });
    assert.equal(invalid.body.error.details.documentCode, "invalid_stack_definition");
    const preview = await h.post("/v1/actions/stacks/apply/preview", {
      stackRoot: root,
      definition: STACK,
    });
    const receiptId = preview.body.data.receiptId;
    const mismatch = await h.post("/v1/actions/stacks/apply/execute", {
      stackRoot: `${root}/`,
      receiptId,
    });
    assert.equal(mismatch.body.error.details.receiptCode, "receipt_mismatch");
    const run = await h.post("/v1/actions/stacks/apply/execute", { stackRoot: root, receiptId });
    assert.equal(run.body.data.changed, true);
    assert.equal(run.body.data.result.applied, true);
    const text = await Deno.readTextFile(`${root}/portreeve.stack.json`);
    assert.ok(text.endsWith("}\n"));
    const replay = await h.post("/v1/actions/stacks/apply/execute", { stackRoot: root, receiptId });
    assert.deepEqual([replay.body.data.changed, replay.body.data.replayed], [false, true]);
    const doc = await h.get(`/v1/stack-document?stackRoot=${encodeURIComponent(root)}`);
    assert.equal(doc.body.data.fingerprint, run.body.data.result.fingerprint);
    // External edit between preview and execute.
    const second = await h.post("/v1/actions/stacks/apply/preview", {
      stackRoot: root,
      definition: { ...STACK, project: "shop" },
    });
    await Deno.writeTextFile(`${root}/portreeve.stack.json`, text + " ");
    const edited = await h.post("/v1/actions/stacks/apply/execute", {
      stackRoot: root,
      receiptId: second.body.data.receiptId,
    });
    assert.equal(edited.status, 409);
    assert.equal(edited.body.error.details.documentCode, "stack_definition_changed");
    const unknown = await h.post("/v1/actions/stacks/apply/execute", {
      stackRoot: root,
      receiptId: crypto.randomUUID(),
    });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.details.receiptCode, "not_found");
    const settings = await h.post("/v1/actions/settings/preview", {
      updates: { excludedPorts: [1] },
    });
    h.sim.control.advance(301_000);
    const expired = await h.post("/v1/actions/settings/execute", {
      receiptId: settings.body.data.receiptId,
    });
    assert.equal(expired.body.error.details.receiptCode, "receipt_expired");
    assert.equal(expired.body.error.retryable, false);
    const badKey = await h.post("/v1/actions/settings/preview", { updates: { nope: 1 } });
    assert.equal(badKey.status, 400);
  } finally {
    await h.close();
  }
});

Deno.test("simulator reclaim: refuses strangers, terminates a confirmed fake run", async () => {
  const h = await harness({ settings: { gracefulShutdownMilliseconds: 200 } });
  try {
    h.sim.control.addListener(18300, 777);
    const stranger = await h.post("/v1/ports/18300/reclaim", { policy: "graceful", dryRun: false });
    assert.equal(stranger.body.data.outcome, "refused");
    assert.equal(stranger.body.data.reason, "ownership-unverified");
    h.sim.control.removeListener(18300);
    const a = await h.post("/v1/leases/acquire", acquireBody(h.dir, { exactPort: 18300 }));
    h.sim.control.addListener(18300, 778);
    await h.post(`/v1/leases/${a.body.data.leaseId}/confirm`, {
      leaseToken: a.body.data.leaseToken,
      rootPid: 778,
    });
    const never = await h.post("/v1/ports/18300/reclaim", { policy: "never" });
    assert.equal(never.body.data.reason, "replacement-policy-never");
    const preview = await h.post("/v1/actions/ports/18300/reclaim/preview", { policy: "graceful" });
    assert.equal(preview.body.data.observed.outcome, "would-terminate");
    const done = await h.post("/v1/actions/ports/18300/reclaim/execute", {
      receiptId: preview.body.data.receiptId,
    });
    assert.equal(done.body.data.result.outcome, "terminated");
    assert.equal(done.body.data.result.signals[0].signal, "SIGTERM");
    assert.equal((await h.get("/v1/ports/18300")).body.data.classification, "idle");
  } finally {
    await h.close();
  }
});
