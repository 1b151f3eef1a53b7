/** Settings family (read side) against a scripted daemon. */
import assert from "node:assert/strict";
import { comparable, inOrder, toolRig } from "../../../support/scripted_daemon.ts";
import { pinDaemonErrors } from "../../../support/pins.ts";
import { recorded } from "../../../support/recorded.ts";

Deno.test("settings_get: GET /v1/config; the daemon's settings come back", async () => {
  const config = recorded("config");
  await using rig = toolRig(inOrder(config.reply));
  const r = await rig.call("portreeve_settings_get");
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(config.sent)]);
  assert.equal(r.data!.leaseTtlMilliseconds, 15000);
  assert.deepEqual(r.data!.automaticPortRanges, [{ start: 10240, end: 49151 }]);
});

pinDaemonErrors("portreeve_settings_get", {});
