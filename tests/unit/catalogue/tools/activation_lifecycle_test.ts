/**
 * Activation lifecycle against a scripted daemon replaying a recorded session: prepare, begin
 * (tokens into custody, handles out), settle each endpoint with its held token, reconcile, end.
 */
import assert from "node:assert/strict";
import {
  comparable,
  inOrder,
  ok,
  type Reply,
  type ToolRig,
  toolRig,
} from "../../../support/scripted_daemon.ts";
import { pinDaemonErrors } from "../../../support/pins.ts";
import { recorded } from "../../../support/recorded.ts";

const STACK = "d6cc91ed-90d2-431e-9fcf-ecec2b20567d";
const GENERATION = "20ca705a-3794-4ad8-ae55-c4b11d632a58";
const ACTIVATION = "6ba75eb3-e1c9-4b94-839a-07be1e02136f";
const BEGIN = { generationId: GENERATION, bindings: { api: "process", web: "process" } };
const began = recorded("activationBegin");

interface Lease {
  component: string;
  leaseId: string;
  credentialHandle: string;
}

async function begin(rig: ToolRig): Promise<Map<string, Lease>> {
  const r = await rig.call("portreeve_activation_begin", BEGIN);
  return new Map((r.data!.leases as Lease[]).map((l) => [l.component, l]));
}

/** Begins, then calls `tool` on `component`'s held lease (with `args`). */
async function settle(rig: ToolRig, component: string, tool: string, args = {}) {
  const lease = (await begin(rig)).get(component)!;
  const r = await rig.call(tool, {
    activationId: ACTIVATION,
    credentialHandle: lease.credentialHandle,
    ...args,
  });
  return { lease, r };
}

/** The activation as begun, with one endpoint moved to `state` (and its lease gone). */
function withEndpoint(component: string, state: string): Reply {
  const activation = structuredClone(began.data.activation);
  for (const e of activation.endpoints) {
    if (e.component === component) Object.assign(e, { state, leaseId: null, expiresAt: null });
  }
  return ok(activation);
}

Deno.test("stack_prepare: sends the stack id; a fresh generation is a change, a reuse is not", async () => {
  const fresh = recorded("stackPrepare");
  const reused = recorded("stackPrepareAgain");
  await using rig = toolRig(inOrder(fresh.reply, reused.reply));
  const first = await rig.call("portreeve_stack_prepare", { stackId: STACK });
  const second = await rig.call("portreeve_stack_prepare", { stackId: STACK });
  assert.deepEqual(rig.daemon.sent.map(comparable), [fresh.sent, reused.sent].map(comparable));
  assert.deepEqual([first.data!.changed, second.data!.changed], [true, false]);
  assert.equal(
    (first.data!.generation as { id: string }).id,
    "20ca705a-3794-4ad8-ae55-c4b11d632a58",
  );
});

Deno.test("activation_begin: the recorded request; a handle per lease, no token shown", async () => {
  await using rig = toolRig(inOrder(began.reply));
  const r = await rig.call("portreeve_activation_begin", BEGIN);
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(began.sent)]);
  assert.equal(r.data!.credentialCount, 2);
  const leases = r.data!.leases as Lease[];
  assert.deepEqual(leases.map((l) => l.component), ["api", "web"]);
  for (const lease of began.data.leases) {
    assert.ok(!JSON.stringify(r).includes(lease.leaseToken), "tokens stay in custody");
  }
  assert.equal(rig.custody.heldActivation(ACTIVATION)?.credentialCount, 2);
});

/** The recorded begin's lease expiry: the daemon set it 15 s from the start of the begin. */
const BEGUN_EXPIRY = Date.parse(began.data.leases[0].expiresAt as string);

Deno.test("activation_begin: a lease renewed on arrival shows one expiry, the renewal's", async () => {
  const renewedUntil = new Date(BEGUN_EXPIRY - 3_000 + 15_000).toISOString();
  const renewal = ok({
    leases: began.data.leases.map((l: { leaseId: string }) => ({
      leaseId: l.leaseId,
      expiresAt: renewedUntil,
    })),
  });
  // 3 s left, from a daemon that takes 5 s to answer: custody renews before it reports them.
  await using rig = toolRig(inOrder(began.reply, renewal), {
    start: BEGUN_EXPIRY - 3_000,
    daemonDelayMs: 5_000,
  });
  const r = await rig.call("portreeve_activation_begin", BEGIN);
  assert.deepEqual(rig.daemon.sent.map((s) => s.path), [
    "/v1/stack-activations/begin",
    `/v1/stack-activations/${ACTIVATION}/renew`,
  ]);
  const expiries = new Set<unknown>();
  const leases = r.data!.leases as { leaseExpiresAt: string }[];
  const endpoints = (r.data!.activation as { endpoints: { expiresAt?: string }[] }).endpoints;
  const every = (r.data!.activation as { everyEndpoint?: { expiresAt?: string } }).everyEndpoint;
  const everyLease = r.data!.everyLease as { leaseExpiresAt?: string } | undefined;
  for (const lease of leases) expiries.add(lease.leaseExpiresAt ?? everyLease?.leaseExpiresAt);
  for (const endpoint of endpoints) expiries.add(endpoint.expiresAt ?? every?.expiresAt);
  assert.deepEqual([...expiries], [renewedUntil], "each lease one expiry, the renewal's");
});

Deno.test("activation_confirm_endpoint: each confirm sends its own held token, as recorded", async () => {
  const api = recorded("activationConfirm");
  const web = recorded("activationConfirmSecond");
  await using rig = toolRig(inOrder(began.reply, api.reply, web.reply));
  const leases = await begin(rig);
  for (const [component, rootPid] of [["api", 14500], ["web", 14511]] as const) {
    await rig.call("portreeve_activation_confirm_endpoint", {
      activationId: ACTIVATION,
      credentialHandle: leases.get(component)!.credentialHandle,
      bindingKind: "process",
      rootPid,
    });
  }
  assert.deepEqual(
    rig.daemon.sent.slice(1).map(comparable),
    [api.sent, web.sent].map(comparable),
  );
  assert.equal(rig.custody.heldActivation(ACTIVATION), undefined, "both credentials erased");
});

Deno.test("activation_confirm_endpoint: process evidence without rootPid is refused unsent", async () => {
  await using rig = toolRig(inOrder(began.reply));
  const leases = await begin(rig);
  const r = await rig.call("portreeve_activation_confirm_endpoint", {
    activationId: ACTIVATION,
    credentialHandle: leases.get("api")!.credentialHandle,
    bindingKind: "process",
  });
  assert.equal(r.error?.code, "portreeve_invalid_input");
  assert.equal(rig.daemon.sent.length, 1);
});

Deno.test("activation_skip_endpoint: sends only the lease and its token; that credential goes", async () => {
  await using rig = toolRig(inOrder(began.reply, withEndpoint("web", "skipped")));
  const { lease: web, r } = await settle(rig, "web", "portreeve_activation_skip_endpoint");
  assert.equal(r.data!.changed, true);
  const token = began.data.leases.find((l: Lease) => l.component === "web").leaseToken;
  assert.deepEqual(comparable(rig.daemon.sent[1]), {
    method: "POST",
    path: `/v1/stack-activations/${ACTIVATION}/skip`,
    payload: { leaseId: web.leaseId, leaseToken: token },
    capabilities: ["stack-activations-v1"],
  });
  assert.equal(rig.custody.heldActivation(ACTIVATION)?.credentialCount, 1);
});

Deno.test("activation_abandon_endpoint: sends the reason with the held token", async () => {
  await using rig = toolRig(inOrder(began.reply, withEndpoint("api", "failed")));
  const { lease: api, r } = await settle(rig, "api", "portreeve_activation_abandon_endpoint", {
    reason: "address-in-use",
  });
  assert.equal(r.isError, false, r.text);
  const sent = rig.daemon.sent[1];
  assert.equal(sent.path, `/v1/stack-activations/${ACTIVATION}/abandon`);
  assert.equal(sent.payload.reason, "address-in-use");
  assert.equal(sent.payload.leaseId, api.leaseId);
});

Deno.test("activation_custody_extend: lengthens custody without asking the daemon", async () => {
  await using rig = toolRig(inOrder(began.reply));
  const leases = await begin(rig);
  assert.equal(leases.size, 2);
  const r = await rig.call("portreeve_activation_custody_extend", {
    activationId: ACTIVATION,
    custodyMinutes: 30,
  });
  assert.equal(r.data!.changed, true);
  assert.equal(r.data!.credentialCount, 2);
  assert.equal(rig.daemon.sent.length, 1, "only the begin reached the daemon");
  const again = await rig.call("portreeve_activation_custody_extend", {
    activationId: ACTIVATION,
    custodyMinutes: 20,
  });
  assert.equal(again.data!.changed, false, "custody only lengthens");
});

Deno.test("activation_reconcile: POST with an empty body; providers in the answer", async () => {
  const reconcile = recorded("activationReconcile");
  await using rig = toolRig(inOrder(reconcile.reply));
  const r = await rig.call("portreeve_activation_reconcile", { activationId: ACTIVATION });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(reconcile.sent)]);
  assert.equal(r.data!.changed, false);
});

Deno.test("activation_end: the recorded conflict stays retryable; then ended, then unchanged", async () => {
  const refused = recorded("activationEndConflict");
  const ended = recorded("activationEnd");
  const again = recorded("activationEndAgain");
  await using rig = toolRig(inOrder(refused.reply, ended.reply, again.reply));
  const first = await rig.call("portreeve_activation_end", { activationId: ACTIVATION });
  assert.equal(first.error?.code, "portreeve_conflict");
  assert.equal(first.error?.retryable, true);
  assert.match(first.error!.message, /still has provider evidence/);
  const second = await rig.call("portreeve_activation_end", { activationId: ACTIVATION });
  const third = await rig.call("portreeve_activation_end", { activationId: ACTIVATION });
  assert.deepEqual([second.data!.changed, third.data!.changed], [true, false]);
  assert.deepEqual(
    rig.daemon.sent.map(comparable),
    [refused.sent, ended.sent, again.sent].map(comparable),
  );
});

const handleOf = (component: string) => (rig: ToolRig) =>
  rig.custody.heldActivation(ACTIVATION)!.leases.find((l) => l.component === component)!.handle;
const prepareBegin = (rig: ToolRig) => rig.call("portreeve_activation_begin", BEGIN);

pinDaemonErrors("portreeve_stack_prepare", { stackId: STACK });
pinDaemonErrors("portreeve_activation_begin", BEGIN);
pinDaemonErrors(
  "portreeve_activation_confirm_endpoint",
  (rig) => ({
    activationId: ACTIVATION,
    credentialHandle: handleOf("api")(rig),
    bindingKind: "process",
    rootPid: 14500,
  }),
  [began.reply],
  prepareBegin,
);
pinDaemonErrors(
  "portreeve_activation_skip_endpoint",
  (rig) => ({ activationId: ACTIVATION, credentialHandle: handleOf("web")(rig) }),
  [began.reply],
  prepareBegin,
);
pinDaemonErrors(
  "portreeve_activation_abandon_endpoint",
  (rig) => ({
    activationId: ACTIVATION,
    credentialHandle: handleOf("web")(rig),
    reason: "startup-error",
  }),
  [began.reply],
  prepareBegin,
);
pinDaemonErrors("portreeve_activation_reconcile", { activationId: ACTIVATION });
pinDaemonErrors("portreeve_activation_end", { activationId: ACTIVATION });
