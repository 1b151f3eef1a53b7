/** Stacks family (read side) against a scripted daemon. */
import assert from "node:assert/strict";
import { comparable, inOrder, toolRig } from "../../../support/scripted_daemon.ts";
import { pinDaemonErrors, pinDetail } from "../../../support/pins.ts";
import { recorded } from "../../../support/recorded.ts";

const STACK = "d6cc91ed-90d2-431e-9fcf-ecec2b20567d";
const ACTIVATION = "6ba75eb3-e1c9-4b94-839a-07be1e02136f";

Deno.test("stacks_list: GET /v1/stacks; the stacks come back paged", async () => {
  const list = recorded("stacksList");
  await using rig = toolRig(inOrder(list.reply));
  const r = await rig.call("portreeve_stacks_list");
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(list.sent)]);
  assert.deepEqual((r.data!.items as { id: string }[]).map((s) => s.id), [STACK]);
});

Deno.test("stack_get: GET /v1/stacks/{id}", async () => {
  const get = recorded("stackGet");
  await using rig = toolRig(inOrder(get.reply));
  const r = await rig.call("portreeve_stack_get", { id: STACK });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(get.sent)]);
  assert.equal(r.data!.project, "anchor-stack");
});

Deno.test("stack_status: a read by POST with an empty body", async () => {
  const status = recorded("stackStatus");
  await using rig = toolRig(inOrder(status.reply));
  const r = await rig.call("portreeve_stack_status", { stackId: STACK });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(status.sent)]);
  assert.equal((r.data!.stack as { id: string }).id, STACK);
});

Deno.test("stack_document_get: the stack root is the query; a missing document says so", async () => {
  const missing = recorded("stackDocument");
  await using rig = toolRig(inOrder(missing.reply));
  const r = await rig.call("portreeve_stack_document_get", {
    stackRoot: "/home/dev/work/demo-stack",
  });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(missing.sent)]);
  assert.equal(r.data!.kind, "missing");
  assert.equal(r.data!.path, "/home/dev/work/demo-stack/portreeve.stack.json");
});

Deno.test("stack_definition_validate: the definition goes as sent; both verdicts come back", async () => {
  const good = recorded("stackValidate");
  const bad = recorded("stackValidateInvalid");
  await using rig = toolRig(inOrder(good.reply, bad.reply));
  const valid = await rig.call("portreeve_stack_definition_validate", good.sent.payload);
  const invalid = await rig.call("portreeve_stack_definition_validate", bad.sent.payload);
  assert.deepEqual(rig.daemon.sent.map(comparable), [good.sent, bad.sent].map(comparable));
  assert.equal(valid.data!.valid, true);
  assert.equal(invalid.isError, false, "an invalid definition is an answer, not an error");
  assert.equal(invalid.data!.valid, false);
  assert.equal((invalid.data!.issues as unknown[]).length, bad.data.issues.length);
});

Deno.test("stack_snapshot: component and gateway host go in the body", async () => {
  const snapshot = recorded("activationSnapshot");
  await using rig = toolRig(inOrder(snapshot.reply));
  const r = await rig.call("portreeve_stack_snapshot", {
    activationId: ACTIVATION,
    component: "web",
    gatewayHost: "host.docker.internal",
  });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(snapshot.sent)]);
  assert.equal(r.data!.component, "web");
  assert.equal(r.data!.activationId, ACTIVATION);
});

pinDaemonErrors("portreeve_stacks_list", {});
pinDaemonErrors("portreeve_stack_get", { id: STACK });
pinDaemonErrors("portreeve_stack_status", { stackId: STACK });
pinDaemonErrors("portreeve_stack_document_get", { stackRoot: "/home/dev/work/demo-stack" });
pinDaemonErrors("portreeve_stack_definition_validate", { definition: { version: 1 } });
pinDaemonErrors("portreeve_stack_snapshot", {
  activationId: ACTIVATION,
  component: "web",
  gatewayHost: "host.docker.internal",
});
pinDetail("portreeve_stacks_list", {}, recorded("stacksList").reply);
pinDetail("portreeve_stack_get", { id: STACK }, recorded("stackGet").reply);
pinDetail("portreeve_stack_status", { stackId: STACK }, recorded("stackStatus").reply);
