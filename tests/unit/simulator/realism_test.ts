// Simulator behaviour that was checked against the REAL PortReeve daemon (0.1.0): check order,
// lineage rules, persisted side effects, history payloads and error details.
import assert from "node:assert/strict";
import { clientBlock, type Harness, harness } from "../../support/simulator_harness.ts";

const SCHEMA_MESSAGE = "The PortReeve request is invalid.";

function acquireBody(workspaceRoot: string, allocation: Record<string, unknown> = {}) {
  return {
    claim: { project: "p", workspaceRoot, component: "api", endpoint: "http", transport: "tcp" },
    allocation: { mode: "sticky", replacementPolicy: "never", ...allocation },
  };
}

const ONE = (project: string) => ({
  version: 1,
  project,
  components: { api: { endpoints: { http: { allocation: { preferredPort: 18680 } } } } },
});

async function acquire(h: Harness, port: number) {
  const a = await h.post("/v1/leases/acquire", acquireBody(h.dir, { preferredPort: port }));
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.equal(a.body.data.port, port);
  return a.body.data as { leaseId: string; leaseToken: string; port: number; claimId: string };
}

/** Applies a one-component stack, prepares it and confirms its activation with a fake pid. */
async function confirmedStack(h: Harness, root: string, pid: number) {
  const applied = await h.post("/v1/stacks/apply", { stackRoot: root, definition: ONE("one") });
  const stackId = applied.body.data.stack.id as string;
  const prep = await h.post(`/v1/stacks/${stackId}/prepare`);
  const begin = await h.post("/v1/stack-activations/begin", {
    generationId: prep.body.data.generation.id,
  });
  assert.equal(begin.status, 200, JSON.stringify(begin.body));
  const activationId = begin.body.data.activation.id as string;
  const [lease] = begin.body.data.leases;
  h.sim.control.addListener(lease.port, pid);
  const confirmed = await h.post(`/v1/stack-activations/${activationId}/confirm`, {
    leaseId: lease.leaseId,
    leaseToken: lease.leaseToken,
    rootPid: pid,
  });
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  return { stackId, activationId, port: lease.port as number };
}

Deno.test("realism: PID 1 is never a valid root (lineage stops at parent <= 1)", async () => {
  const h = await harness();
  try {
    const lease = await acquire(h, 18600);
    h.sim.control.addListener(18600, 4400); // parent 1
    const init = await h.post(`/v1/leases/${lease.leaseId}/confirm`, {
      leaseToken: lease.leaseToken,
      rootPid: 1,
    });
    assert.equal(init.status, 409, JSON.stringify(init.body));
    assert.equal(init.body.error.code, "conflict");
    assert.deepEqual(init.body.error.details.ownership, [
      { verified: false, reason: "not-in-run-lineage", lineage: [4400] },
    ]);
    const ok = await h.post(`/v1/leases/${lease.leaseId}/confirm`, {
      leaseToken: lease.leaseToken,
      rootPid: 4400,
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const entry = await h.get("/v1/ports/18600");
    assert.deepEqual(entry.body.data.listeners[0].ownership.lineage, [4400]);
  } finally {
    await h.close();
  }
});

Deno.test("realism: lease confirm checks listeners before the token and the lease state", async () => {
  const h = await harness();
  try {
    const lease = await acquire(h, 18610);
    const wrongToken = { leaseToken: "x".repeat(43), rootPid: 4410 };
    // Nothing listening: a bad token is an ownership conflict, not invalid_lease_token.
    const bad = await h.post(`/v1/leases/${lease.leaseId}/confirm`, wrongToken);
    assert.equal(bad.status, 409);
    assert.equal(bad.body.error.code, "conflict");
    assert.deepEqual(bad.body.error.details.listeners, []);
    // With an owned listener the token is checked.
    h.sim.control.addListener(18610, 4410);
    const badWithListener = await h.post(`/v1/leases/${lease.leaseId}/confirm`, wrongToken);
    assert.equal(badWithListener.status, 400);
    assert.equal(badWithListener.body.error.code, "invalid_lease_token");
    // An abandoned lease with nothing listening: conflict again, not lease_not_pending.
    h.sim.control.removeListener(18610);
    await h.post(`/v1/leases/${lease.leaseId}/abandon`, {
      leaseToken: lease.leaseToken,
      reason: "startup-error",
    });
    const abandoned = await h.post(`/v1/leases/${lease.leaseId}/confirm`, {
      leaseToken: lease.leaseToken,
      rootPid: 4410,
    });
    assert.equal(abandoned.status, 409);
    assert.equal(abandoned.body.error.code, "conflict");
    h.sim.control.addListener(18610, 4410);
    const notPending = await h.post(`/v1/leases/${lease.leaseId}/confirm`, {
      leaseToken: lease.leaseToken,
      rootPid: 4410,
    });
    assert.equal(notPending.status, 409);
    assert.equal(notPending.body.error.code, "lease_not_pending");
    assert.deepEqual(notPending.body.error.details, {});
  } finally {
    await h.close();
  }
});

Deno.test("realism: a failed exact-port acquire still stores the claim", async () => {
  const h = await harness();
  try {
    h.sim.control.addListener(18620, 4420);
    const a = await h.post("/v1/leases/acquire", acquireBody(h.dir, { exactPort: 18620 }));
    assert.equal(a.status, 409);
    assert.equal(a.body.error.code, "conflict");
    assert.deepEqual(a.body.error.details, { port: 18620 });
    const claims = await h.get(`/v1/claims?workspaceRoot=${encodeURIComponent(h.dir)}`);
    assert.equal(claims.body.data.length, 1);
    const claim = claims.body.data[0];
    assert.equal(claim.assignedPort, null);
    assert.equal(claim.exactPort, 18620);
    const created = await h.get("/v1/history?eventType=claim.created");
    assert.deepEqual(created.body.data.items.map((e: { entityId: string }) => e.entityId), [
      claim.id,
    ]);
    assert.equal((await h.get("/v1/history?eventType=lease.acquired")).body.data.items.length, 0);
    // The next acquire finds the stored claim instead of creating another.
    h.sim.control.removeListener(18620);
    const b = await h.post("/v1/leases/acquire", acquireBody(h.dir, { exactPort: 18620 }));
    assert.equal(b.status, 200, JSON.stringify(b.body));
    assert.equal(b.body.data.claimId, claim.id);
  } finally {
    await h.close();
  }
});

Deno.test("realism: claims prune includes stack-linked claims; ones with runs are skipped", async () => {
  const h = await harness();
  const used = `${h.dir}/used`;
  const idle = `${h.dir}/idle`;
  await Deno.mkdir(used);
  await Deno.mkdir(idle);
  try {
    const { activationId, port } = await confirmedStack(h, used, 4430);
    h.sim.control.removeListener(port);
    const ended = await h.post(`/v1/stack-activations/${activationId}/end`);
    assert.equal(ended.body.data.activation.state, "ended");
    await h.post("/v1/stacks/apply", { stackRoot: idle, definition: ONE("two") });
    const claims = (await h.get("/v1/claims")).body.data as {
      id: string;
      identity: { workspaceRoot: string };
    }[];
    const usedClaim = claims.find((c) => c.identity.workspaceRoot === used)!.id;
    const idleClaim = claims.find((c) => c.identity.workspaceRoot === idle)!.id;
    await Deno.remove(used);
    await Deno.remove(idle);
    const plan = await h.post("/v1/claims/prune", { olderThanMilliseconds: 0, dryRun: true });
    assert.deepEqual(
      plan.body.data.candidates.map((c: { claim: { id: string } }) => c.claim.id).sort(),
      [usedClaim, idleClaim].sort(),
    );
    const done = await h.post("/v1/claims/prune", { olderThanMilliseconds: 0, dryRun: false });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.deepEqual(done.body.data.deletedClaimIds, [idleClaim]);
    assert.deepEqual(done.body.data.skipped, [{ claimId: usedClaim, reason: "active_run" }]);
    assert.equal(h.sim.control.state.claims.has(usedClaim), true);
  } finally {
    await h.close();
  }
});

Deno.test("realism: activation loss history carries provider objects and the release reason", async () => {
  const h = await harness();
  const root = `${h.dir}/stack`;
  await Deno.mkdir(root);
  try {
    const { activationId, port } = await confirmedStack(h, root, 4440);
    h.sim.control.removeListener(port);
    const lost = await h.post(`/v1/stack-activations/${activationId}/reconcile`);
    assert.equal(lost.body.data.activation.state, "lost");
    const event = (await h.get("/v1/history?eventType=stack.activation.lost")).body.data.items[0];
    assert.deepEqual(event.payload.providers, [{
      component: "api",
      endpoint: "http",
      bindingKind: "process",
      status: "gone",
      reason: "listener-missing",
    }]);
    const released = (await h.get("/v1/history?eventType=run.released")).body.data.items[0];
    assert.deepEqual(released.payload, { activationId, reason: "provider-lost" });
  } finally {
    await h.close();
  }
});

Deno.test("realism: schema failures (attached non-start, unknown setting, before negotiation)", async () => {
  const h = await harness();
  const root = `${h.dir}/stack`;
  await Deno.mkdir(root);
  try {
    const stackId = (await h.post("/v1/stacks/apply", { stackRoot: root, definition: ONE("s") }))
      .body.data.stack.id;
    const attached = await h.post("/v1/launcher-operations/begin", {
      stackId,
      operation: "stop",
      executionMode: "attached",
      launcherRevision: "a".repeat(64),
      callerOperationId: crypto.randomUUID(),
    });
    assert.equal(attached.status, 400);
    assert.equal(attached.body.error.code, "invalid_input");
    assert.equal(attached.body.error.message, SCHEMA_MESSAGE);
    assert.deepEqual(attached.body.error.details, {
      issues: [{
        code: "custom",
        path: ["executionMode"],
        message: "attached execution is available only for Start",
      }],
    });

    for (const path of ["/v1/config", "/v1/actions/settings/preview"]) {
      const unknown = await h.post(path, { updates: { colour: "blue" } });
      assert.equal(unknown.status, 400, path);
      assert.equal(unknown.body.error.message, SCHEMA_MESSAGE, path);
      assert.deepEqual(unknown.body.error.details.issues.map((i: { code: string }) => i.code), [
        "unrecognized_keys",
      ], path);
      assert.match(unknown.body.error.details.issues[0].message, /Unrecognized key/, path);
    }

    // The body schema is checked before protocol negotiation; body-less routes negotiate.
    const future = { ...clientBlock(), protocol: { minimum: 2, maximum: 2 } };
    const badShape = await h.post("/v1/leases/acquire", { claim: {} }, { client: future });
    assert.equal(badShape.status, 400);
    assert.equal(badShape.body.error.code, "invalid_input");
    assert.ok(Array.isArray(badShape.body.error.details.issues));
    const goodShape = await h.post("/v1/leases/acquire", acquireBody(h.dir), { client: future });
    assert.equal(goodShape.status, 426);
    const badPreview = await h.post("/v1/actions/claims/prune/preview", {}, { client: future });
    assert.equal(badPreview.status, 400);
    const release = await h.post(`/v1/runs/${crypto.randomUUID()}/release`, {}, {
      client: future,
    });
    assert.equal(release.status, 426);

    const unknownRoute = await h.get("/v1/nothing-here");
    assert.equal(unknownRoute.status, 404);
    assert.equal(
      unknownRoute.body.error.message,
      "No PortReeve endpoint matches GET /v1/nothing-here.",
    );
  } finally {
    await h.close();
  }
});

Deno.test("realism: error details match the daemon's keys", async () => {
  const h = await harness();
  const root = `${h.dir}/stack`;
  await Deno.mkdir(root);
  try {
    const missing = crypto.randomUUID();
    const receipt = await h.post("/v1/actions/claims/prune/execute", { receiptId: missing });
    assert.deepEqual(receipt.body.error.details, { receiptCode: "not_found", receiptId: missing });
    const preview = await h.post("/v1/actions/settings/preview", {
      updates: { excludedPorts: [18699] },
    });
    const wrong = await h.post("/v1/actions/claims/prune/execute", {
      receiptId: preview.body.data.receiptId,
    });
    assert.deepEqual(wrong.body.error.details, {
      receiptCode: "receipt_mismatch",
      receiptId: preview.body.data.receiptId,
    });

    const nowhere = `${h.dir}/nowhere`;
    const listed = await h.get(`/v1/stacks?stackRoot=${encodeURIComponent(nowhere)}`);
    assert.equal(listed.body.error.details.stackRoot, nowhere);
    assert.equal(listed.body.error.details.reason, "invalid_stack_root");
    const doc = await h.get(`/v1/stack-document?stackRoot=${encodeURIComponent(nowhere)}`);
    assert.deepEqual(doc.body.error.details, {
      stackRoot: nowhere,
      documentCode: "invalid_stack_root",
    });
    const applyPreview = await h.post("/v1/actions/stacks/apply/preview", {
      stackRoot: nowhere,
      definition: ONE("x"),
    });
    assert.equal(applyPreview.body.error.details.stackRoot, nowhere);

    for (
      const path of [
        `/v1/stacks/${missing}`,
        `/v1/stack-activations/${missing}`,
        `/v1/stack-generations/${missing}`,
      ]
    ) {
      const res = await h.get(path);
      assert.equal(res.status, 404, path);
      assert.deepEqual(res.body.error.details, {}, path);
    }
    const op = await h.get(`/v1/launcher-operations/${missing}`);
    assert.deepEqual(op.body.error.details, { operationId: missing });

    const { stackId, activationId } = await confirmedStack(h, root, 4450);
    const component = await h.post(`/v1/stack-activations/${activationId}/resolve`, {
      component: "nope",
    });
    assert.equal(component.status, 404);
    assert.deepEqual(component.body.error.details, { stackId, component: "nope" });

    const base = { stackId, launcherRevision: "b".repeat(64), operation: "status" };
    const began = await h.post("/v1/launcher-operations/begin", {
      ...base,
      callerOperationId: crypto.randomUUID(),
    });
    const operationId = began.body.data.operation.id;
    const busy = await h.post("/v1/launcher-operations/begin", {
      ...base,
      callerOperationId: crypto.randomUUID(),
    });
    assert.equal(busy.body.error.details.stackId, stackId);
    const credential = await h.post(`/v1/launcher-operations/${operationId}/renew`, {
      credential: "y".repeat(43),
    });
    assert.equal(credential.body.error.code, "invalid_operation_credential");
    assert.deepEqual(credential.body.error.details, { operationId });
    await h.post(`/v1/launcher-operations/${operationId}/complete`, {
      credential: began.body.data.credential,
      completion: { outcome: "succeeded" },
    });
    const terminal = await h.post(`/v1/launcher-operations/${operationId}/renew`, {
      credential: began.body.data.credential,
    });
    assert.deepEqual(terminal.body.error.details, {
      operationId,
      reason: "launcher_operation_terminal",
    });
  } finally {
    await h.close();
  }
});

Deno.test("realism: without /proc or lsof/ps the simulator says so once on stderr", async () => {
  if (Deno.build.os !== "linux") return;
  const dir = await Deno.makeTempDir({ prefix: "portreeve-sim-probe-" });
  const main = new URL("../../../scripts/simulator.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-net",
      "--allow-env",
      "--quiet",
      main,
      "--socket",
      `${dir}/s.sock`,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let text = "";
  try {
    const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    while (!text.includes("listening on")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    child.kill("SIGTERM");
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
  } finally {
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
  const warnings = text.split("\n").filter((l) => l.includes("cannot observe host"));
  assert.equal(warnings.length, 1, text);
  assert.match(warnings[0], /listeners and processes/);
  assert.match(warnings[0], /-A/);
});
