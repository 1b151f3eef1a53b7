/** Activations family (read side) against a scripted daemon. */
import assert from "node:assert/strict";
import { comparable, inOrder, toolRig } from "../../../support/scripted_daemon.ts";
import { pinDaemonErrors, pinDetail } from "../../../support/pins.ts";
import { recorded } from "../../../support/recorded.ts";

const STACK = "d6cc91ed-90d2-431e-9fcf-ecec2b20567d";
const ACTIVATION = "6ba75eb3-e1c9-4b94-839a-07be1e02136f";

Deno.test("activations_list: the stack filter is the query; activations come back paged", async () => {
  const list = recorded(113);
  await using rig = toolRig(inOrder(list.reply));
  const r = await rig.call("portreeve_activations_list", { stackId: STACK });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(list.sent)]);
  assert.deepEqual((r.data!.items as { id: string }[]).map((a) => a.id), [ACTIVATION]);
});

Deno.test("activation_get: GET /v1/stack-activations/{id}; each endpoint in the answer", async () => {
  const get = recorded(100);
  await using rig = toolRig(inOrder(get.reply));
  const r = await rig.call("portreeve_activation_get", { id: ACTIVATION });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(get.sent)]);
  assert.equal(r.data!.state, "confirmed");
});

Deno.test("activation_resolve: a read by POST with the component; own and dependency addresses", async () => {
  const resolve = recorded(91);
  await using rig = toolRig(inOrder(resolve.reply));
  const r = await rig.call("portreeve_activation_resolve", {
    activationId: ACTIVATION,
    component: "web",
  });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(resolve.sent)]);
  assert.equal(r.data!.component, "web");
});

pinDaemonErrors("portreeve_activations_list", {});
pinDaemonErrors("portreeve_activation_get", { id: ACTIVATION });
pinDaemonErrors("portreeve_activation_resolve", { activationId: ACTIVATION, component: "api" });
pinDetail("portreeve_activations_list", { stackId: STACK }, recorded(113).reply);
pinDetail("portreeve_activation_get", { id: ACTIVATION }, recorded(100).reply);
