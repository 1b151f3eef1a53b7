/**
 * The gate in the daemon client, against the simulator on a real Unix socket: a consequential
 * request goes out only with a fresh proof that this client's gate's minter made, through the
 * approval module, for exactly that request; anything else (no proof, a forged one, another
 * bridge's, a spent one) is refused before a single byte (not even the compatibility probe)
 * reaches the daemon. Proofs here come from the approval module itself (`--approval off` mints
 * one without asking), the only place that holds a minter.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { DaemonClient } from "../../../src/daemon/client.ts";
import { ApprovalGate, ApprovalProof, GateRefusal } from "../../../src/daemon/gate.ts";
import { get, pathOf, post, type Route } from "../../../src/daemon/routes.ts";
import { consequential } from "../../../src/daemon/effects.ts";
import type { Approvals } from "../../../src/catalogue/approval.ts";
import { BridgeError } from "../../../src/shared/errors.ts";
import { startSimulator } from "../../../src/simulator/mod.ts";
import { approvalPair, proofWithoutAsking } from "../../support/approvals.ts";

const SETTINGS = post(
  "/v1/actions/settings/execute",
  z.looseObject({}),
  consequential(["changes settings"], "changes settings"),
);
const CONFIG = get("/v1/config", z.looseObject({}));

/** A proof from `approvals` for `body` on SETTINGS (`off` mints without asking). */
function proofFor(approvals: Approvals, body: Record<string, unknown>, route: Route = SETTINGS) {
  return proofWithoutAsking(approvals, { route, path: pathOf(route), body });
}

async function daemon() {
  const dir = await Deno.makeTempDir();
  const sim = await startSimulator({ socketPath: `${dir}/d.sock`, observeHost: false });
  const { gate, approvals } = approvalPair();
  const client = new DaemonClient({ socketPath: sim.socketPath, runId: crypto.randomUUID(), gate });
  return {
    sim,
    client,
    approvals,
    async [Symbol.asyncDispose]() {
      client.close();
      await sim.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function refused(promise: Promise<unknown>, why: RegExp): Promise<void> {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof GateRefusal, String(error));
    assert.match(error.message, why);
    assert.match(error.message, /nothing was sent/);
    return true;
  });
}

Deno.test("gate: a consequential request without a valid proof never reaches the daemon", async () => {
  await using d = await daemon();
  const body = { receiptId: crypto.randomUUID() };
  await refused(d.client.request(SETTINGS, { body }), /with no approval/);
  const forged = new ApprovalProof(
    { route: SETTINGS, path: pathOf(SETTINGS), body },
    "person",
  );
  await refused(
    d.client.request(SETTINGS, { body, approval: forged }),
    /an approval this bridge's approval module did not mint/,
  );
  // Another bridge's approvals, for this very request: a proof of theirs is nothing here.
  const elsewhere = await proofFor(approvalPair().approvals, body);
  await refused(
    d.client.request(SETTINGS, { body, approval: elsewhere }),
    /an approval this bridge's approval module did not mint/,
  );
  const other = await proofFor(d.approvals, { receiptId: crypto.randomUUID() });
  await refused(
    d.client.request(SETTINGS, { body, approval: other }),
    /an approval for another request/,
  );
  assert.equal(d.sim.requests.length, 0, "not even the compatibility probe was sent");
});

Deno.test("gate: a proof lets its one request through once", async () => {
  await using d = await daemon();
  const body = { receiptId: crypto.randomUUID() };
  const proof = await proofFor(d.approvals, body);
  // The daemon refuses the unknown receipt; what matters is that the request was sent.
  await assert.rejects(d.client.request(SETTINGS, { body, approval: proof }), BridgeError);
  assert.equal(d.sim.requests.filter((r) => r.path === pathOf(SETTINGS)).length, 1);
  await refused(
    d.client.request(SETTINGS, { body, approval: proof }),
    /an approval already spent/,
  );
  assert.equal(d.sim.requests.filter((r) => r.path === pathOf(SETTINGS)).length, 1);
});

Deno.test("gate: reads and coordination need no proof; undeclared routes are never sent", async () => {
  await using d = await daemon();
  assert.ok(await d.client.request(CONFIG));
  const literal: Route = { ...CONFIG };
  await assert.rejects(d.client.request(literal), /GET \/v1\/config is not a declared route/);
  assert.equal(d.sim.requests.filter((r) => r.path === "/v1/config").length, 1);
});

Deno.test("gate: a gate hands out its minter once; a client whose minter nobody took sends nothing consequential", async () => {
  const gate = new ApprovalGate();
  const mint = gate.takeMinter();
  assert.throws(() => gate.takeMinter(), /already taken/);
  const request = { route: SETTINGS, path: pathOf(SETTINGS), body: {} };
  assert.equal(
    gate.admit(SETTINGS, request.path, {}, mint(request, "person")).level,
    "consequential",
  );
  await using d = await daemon();
  const unminted = new DaemonClient({
    socketPath: d.sim.socketPath,
    runId: crypto.randomUUID(),
    gate: new ApprovalGate(),
  });
  try {
    await refused(
      unminted.request(SETTINGS, { body: {}, approval: await proofFor(d.approvals, {}) }),
      /did not mint/,
    );
  } finally {
    unminted.close();
  }
});
