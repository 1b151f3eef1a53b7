/** Generations family against a scripted daemon. */
import assert from "node:assert/strict";
import { comparable, inOrder, toolRig } from "../../../support/scripted_daemon.ts";
import { pinDaemonErrors } from "../../../support/pins.ts";
import { recorded } from "../../../support/recorded.ts";

const STACK = "d6cc91ed-90d2-431e-9fcf-ecec2b20567d";
const GENERATION = "20ca705a-3794-4ad8-ae55-c4b11d632a58";

Deno.test("generations_list: the stack filter is the query; generations come back paged", async () => {
  const list = recorded(78);
  await using rig = toolRig(inOrder(list.reply));
  const r = await rig.call("portreeve_generations_list", { stackId: STACK });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(list.sent)]);
  assert.deepEqual((r.data!.items as { id: string }[]).map((g) => g.id), [GENERATION]);
});

Deno.test("generation_get: GET /v1/stack-generations/{id}; endpoint ports in the answer", async () => {
  const get = recorded(81);
  await using rig = toolRig(inOrder(get.reply));
  const r = await rig.call("portreeve_generation_get", { id: GENERATION });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(get.sent)]);
  assert.equal(r.data!.id, GENERATION);
});

pinDaemonErrors("portreeve_generations_list", {});
pinDaemonErrors("portreeve_generation_get", { id: GENERATION });
