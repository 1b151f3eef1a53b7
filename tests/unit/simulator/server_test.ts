// Transport rules of the simulator: envelopes, request IDs, negotiation, routing, faults.
import assert from "node:assert/strict";
import { clientBlock, harness } from "../../support/simulator_harness.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

Deno.test("simulator health and config answer in the v1 envelope", async () => {
  const h = await harness();
  try {
    const id = "354644d3-e019-438a-a378-3c157acf7a9e";
    const health = await h.get("/v1/health", { "x-portreeve-request-id": id });
    assert.deepEqual(health.status, 200);
    assert.deepEqual(health.body.protocolVersion, 1);
    assert.deepEqual(health.body.requestId, id);
    assert.deepEqual(health.body.data.softwareVersion, "0.1.0");
    assert.deepEqual(health.body.data.protocol, { minimum: 1, maximum: 1 });
    assert.deepEqual(health.body.data.capabilities.length, 12);
    assert.deepEqual(health.body.data.mode, "manual");
    const config = await h.get("/v1/config", { "x-portreeve-request-id": "not-a-uuid" });
    assert.match(config.body.requestId, UUID);
    assert.deepEqual(config.body.data.leaseTtlMilliseconds, 15000);
    assert.deepEqual(config.body.data.automaticPortRanges, [{ start: 10240, end: 49151 }]);
    const res = await h.raw("/v1/health", {});
    assert.deepEqual(res.headers.get("content-type"), "application/json;charset=utf-8");
    assert.deepEqual(res.headers.get("x-portreeve-request-id"), null);
    await res.body?.cancel();
    assert.deepEqual(h.sim.requests[0].headers["x-portreeve-request-id"], id);
  } finally {
    await h.close();
  }
});

Deno.test("simulator routing: unknown routes, methods and path parameters", async () => {
  const h = await harness();
  try {
    assert.deepEqual((await h.get("/v1/nothing")).body.error.code, "not_found");
    const put = await h.raw("/v1/health", { method: "PUT" });
    assert.deepEqual(put.status, 404);
    assert.deepEqual((await put.json()).error.code, "not_found");
    const upper = await h.get("/v1/claims/142379F1-1B34-4E87-BC2A-FCAF87B4D70E");
    assert.deepEqual(upper.status, 404);
    const hex = await h.get("/v1/claims/abc-123");
    assert.deepEqual(hex.status, 400);
    assert.deepEqual(hex.body.error.code, "invalid_input");
    assert.deepEqual((await h.get("/v1/ports/0")).status, 400);
    assert.deepEqual((await h.get("/v1/ports/65536")).status, 400);
    assert.deepEqual((await h.get("/v1/ports/65535")).status, 200);
    const missing = await h.get("/v1/claims/f801cd12-eec3-4097-a649-c5f58fd345c0");
    assert.deepEqual(missing.status, 404);
    assert.deepEqual(missing.body.error.retryable, false);
  } finally {
    await h.close();
  }
});

Deno.test("simulator POST bodies need a valid client block", async () => {
  const h = await harness();
  try {
    const bad = await h.raw("/v1/config", { method: "POST", body: "{not json" });
    assert.deepEqual(bad.status, 500);
    assert.deepEqual((await bad.json()).error.code, "internal");
    const empty = await h.raw("/v1/config", { method: "POST", body: "" });
    assert.deepEqual(empty.status, 500);
    await empty.body?.cancel();
    const arr = await h.raw("/v1/config", { method: "POST", body: "[]" });
    assert.deepEqual(arr.status, 400);
    await arr.body?.cancel();
    // Client validation happens before route matching.
    const unknown = await h.post("/v1/unknown", {}, { client: { softwareVersion: "" } });
    assert.deepEqual(unknown.status, 400);
    assert.ok(Array.isArray(unknown.body.error.details.issues));
    assert.deepEqual((await h.post("/v1/unknown")).status, 404);
    const extraOrigin = await h.post("/v1/config", { updates: { excludedPorts: [1] } }, {
      client: { ...clientBlock(), origin: { kind: "mcp", extra: 1 } },
    });
    assert.deepEqual(extraOrigin.status, 400);
    const badRun = await h.post("/v1/config", { updates: { excludedPorts: [1] } }, {
      client: { ...clientBlock(), origin: { kind: "mcp", runId: "nope" } },
    });
    assert.deepEqual(badRun.status, 400);
    const emptyLabel = await h.post("/v1/config", { updates: { excludedPorts: [1] } }, {
      client: { ...clientBlock(), origin: { kind: "cli", label: "   " } },
    });
    assert.deepEqual(emptyLabel.status, 400);
    const range = await h.post("/v1/config", { updates: { excludedPorts: [1] } }, {
      client: { ...clientBlock(), protocol: { minimum: 2, maximum: 3 } },
    });
    assert.deepEqual(range.status, 426);
    assert.deepEqual(range.body.error.details, {
      compatible: false,
      negotiatedProtocol: null,
      missingCapabilities: [],
    });
    const docker = await h.post("/v1/config", { updates: { excludedPorts: [1] } }, {
      capabilities: ["docker-evidence-v1"],
    });
    assert.deepEqual(docker.status, 426);
    assert.deepEqual(docker.body.error.details.missingCapabilities, ["docker-evidence-v1"]);
    assert.deepEqual(docker.body.error.details.negotiatedProtocol, 1);
    const ok = await h.post("/v1/config", { updates: { excludedPorts: [18099] } }, {
      capabilities: ["administration-v1"],
    });
    assert.deepEqual(ok.status, 200);
    assert.deepEqual(ok.body.data.excludedPorts, [18099]);
  } finally {
    await h.close();
  }
});

Deno.test("simulator config validation and history origin", async () => {
  const h = await harness();
  try {
    const unknownKey = await h.post("/v1/config", { updates: { colour: "blue" } });
    assert.deepEqual(unknownKey.status, 400);
    assert.deepEqual(unknownKey.body.error.details.issues, [{
      code: "unrecognized_keys",
      keys: ["colour"],
      path: ["updates"],
      message: 'Unrecognized key: "colour"',
    }]);
    assert.deepEqual((await h.post("/v1/config", { updates: {} })).status, 400);
    const overlap = await h.post("/v1/config", {
      updates: { automaticPortRanges: [{ start: 2000, end: 3000 }, { start: 2500, end: 4000 }] },
    });
    assert.deepEqual(overlap.status, 400);
    const ttl = await h.post("/v1/config", { updates: { leaseTtlMilliseconds: 999 } });
    assert.deepEqual(ttl.status, 400);
    await h.post("/v1/config", { updates: { leaseTtlMilliseconds: 5000 } });
    const history = await h.get("/v1/history?eventType=config.updated");
    assert.deepEqual(history.body.data.items.length, 1);
    assert.deepEqual(history.body.data.items[0].origin.kind, "mcp");
    assert.deepEqual(history.body.data.items[0].entityId, "server");
    const cursor = await h.get("/v1/history?afterCursor=not-a-real-cursor");
    assert.deepEqual(cursor.status, 400);
    assert.deepEqual(cursor.body.error.details, { field: "afterCursor" });
    assert.deepEqual((await h.get("/v1/history?limit=201")).status, 400);
    assert.deepEqual((await h.get("/v1/history?limit=0")).status, 400);
  } finally {
    await h.close();
  }
});

Deno.test("simulator faults: incompatible, wrong envelope, non-json, oversize, broken, hang", async () => {
  const h = await harness();
  try {
    h.sim.control.setFault("incompatible");
    const health = await h.get("/v1/health");
    assert.deepEqual(health.body.data.protocol, { minimum: 2, maximum: 3 });
    assert.deepEqual((await h.post("/v1/config", { updates: { excludedPorts: [] } })).status, 426);
    h.sim.control.setFault("wrong-envelope");
    assert.deepEqual((await h.get("/v1/health")).body.protocolVersion, 2);
    h.sim.control.setFault("non-json");
    const text = await h.raw("/v1/health", {});
    assert.deepEqual(text.status, 200);
    assert.ok(!(text.headers.get("content-type") ?? "").includes("json"));
    await text.body?.cancel();
    h.sim.control.setFault("oversize");
    const big = await h.raw("/v1/health", {});
    assert.ok((await big.arrayBuffer()).byteLength > 2 * 1024 * 1024);
    h.sim.control.setFault("close-mid-response");
    await assert.rejects(async () => {
      const res = await h.raw("/v1/health", {});
      await res.text();
    });
    h.sim.control.setFault("hang");
    const from = h.sim.requests.length;
    const giveUp = new AbortController();
    const hung = assert.rejects(() => h.raw("/v1/health", { signal: giveUp.signal }));
    await h.sim.arrived(() => true, from); // held: no answer comes until the client gives up
    giveUp.abort();
    await hung;
    h.sim.control.setFault("none");
    assert.deepEqual((await h.get("/v1/health")).status, 200);
  } finally {
    await h.close();
  }
});

Deno.test("simulator restart keeps state and close removes the socket", async () => {
  const h = await harness();
  try {
    await h.post("/v1/config", { updates: { leaseTtlMilliseconds: 4000 } });
    await h.sim.restart();
    // The pooled keep-alive connection died with the old server; the first call may fail.
    await h.get("/v1/health").catch(() => null);
    assert.deepEqual((await h.get("/v1/config")).body.data.leaseTtlMilliseconds, 4000);
  } finally {
    await h.close();
  }
  await assert.rejects(() => Deno.lstat(h.sim.socketPath));
});
