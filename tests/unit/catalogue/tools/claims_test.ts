/** Claims family (read side) against a scripted daemon. */
import assert from "node:assert/strict";
import { comparable, inOrder, toolRig } from "../../../support/scripted_daemon.ts";
import { pinDaemonErrors } from "../../../support/pins.ts";
import { recorded } from "../../../support/recorded.ts";

const CLAIM = "142379f1-1b34-4e87-bc2a-fcaf87b4d70e";

Deno.test("claims_list: the workspace filter is the daemon's query; claims come back paged", async () => {
  const list = recorded("claimsOfWorkspace");
  await using rig = toolRig(inOrder(list.reply));
  const r = await rig.call("portreeve_claims_list", { workspaceRoot: "/home/dev/work/demo-app" });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(list.sent)]);
  assert.deepEqual((r.data!.items as { id: string }[]).map((c) => c.id), [CLAIM]);
});

Deno.test("claim_get: GET /v1/claims/{id} with the id lowercased", async () => {
  const get = recorded("claimGet");
  await using rig = toolRig(inOrder(get.reply));
  const r = await rig.call("portreeve_claim_get", { id: CLAIM.toUpperCase() });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(get.sent)]);
  assert.equal(r.data!.id, CLAIM);
});

Deno.test("claim_get: the daemon's recorded not_found stays not_found, with its message", async () => {
  const missing = recorded("claimNotFound");
  await using rig = toolRig(inOrder(missing.reply));
  const r = await rig.call("portreeve_claim_get", { id: "f801cd12-eec3-4097-a649-c5f58fd345c0" });
  assert.equal(r.isError, true);
  assert.equal(r.error?.code, "portreeve_not_found");
  assert.match(r.error!.message, /Claim f801cd12-eec3-4097-a649-c5f58fd345c0 was not found/);
});

pinDaemonErrors("portreeve_claims_list", {});
pinDaemonErrors("portreeve_claim_get", { id: CLAIM });
