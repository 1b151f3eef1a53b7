/**
 * Diagnostics family against a scripted daemon: diagnostics and compatibility report an absent
 * or incompatible daemon as data (each probing afresh); health is the daemon's own health.
 */
import assert from "node:assert/strict";
import { comparable, daemonError, inOrder, ok, toolRig } from "../../../support/scripted_daemon.ts";
import { pinDaemonErrors } from "../../../support/pins.ts";
import { recorded } from "../../../support/recorded.ts";
import { unavailable } from "../../../../src/daemon/errors.ts";

/** Health as the real daemon reported it. */
const RECORDED_HEALTH = recorded(1).data;

const down = () => {
  throw unavailable("/run/user/1000/portreeve/portreeve.sock", "ENOENT");
};

Deno.test("diagnostics: probes afresh and reports the bridge and a compatible daemon", async () => {
  const health = recorded(1);
  await using rig = toolRig(inOrder(health.reply));
  const r = await rig.call("portreeve_diagnostics");
  assert.equal(rig.daemon.invalidations, 1, "the cached verdict is dropped first");
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(health.sent)]);
  const data = r.data as { bridge: { label: string }; daemon: { compatible: boolean } };
  assert.equal(data.bridge.label, "unit");
  assert.equal(data.daemon.compatible, true);
});

Deno.test("diagnostics: no daemon is data with the next step, not an error", async () => {
  await using rig = toolRig(down);
  const r = await rig.call("portreeve_diagnostics");
  assert.equal(r.isError, false);
  const daemon = r.data!.daemon as { available: boolean };
  assert.equal(daemon.available, false);
});

Deno.test("compatibility: a daemon lacking a capability is named, with what to do", async () => {
  const lacking = { ...RECORDED_HEALTH, capabilities: ["claims-v1"] };
  await using rig = toolRig(inOrder(ok(lacking)));
  const r = await rig.call("portreeve_compatibility");
  assert.equal(r.isError, false);
  assert.equal(r.data!.compatible, false);
  assert.match(String(r.data!.guidance), /lacks .*two-phase-allocation-v1/);
  assert.match(String(r.data!.guidance), /need matching versions/);
});

Deno.test("compatibility: the recorded daemon serves every tool", async () => {
  await using rig = toolRig(inOrder(recorded(2).reply));
  const r = await rig.call("portreeve_compatibility");
  assert.equal(r.data!.compatible, true);
});

Deno.test("health: GET /v1/health; the daemon's health comes back", async () => {
  const health = recorded(1);
  await using rig = toolRig(inOrder(health.reply));
  const r = await rig.call("portreeve_health");
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(health.sent)]);
  assert.equal(r.data!.softwareVersion, "0.1.0");
  assert.deepEqual(r.data!.capabilities, RECORDED_HEALTH.capabilities);
});

Deno.test("health: an absent daemon is a retryable unavailable error", async () => {
  await using rig = toolRig(down);
  const r = await rig.call("portreeve_health");
  assert.equal(r.error?.code, "portreeve_unavailable");
  assert.equal(r.error?.retryable, true);
});

Deno.test("compatibility: a daemon that does not answer leaves compatibility unknown", async () => {
  await using rig = toolRig(down);
  const r = await rig.call("portreeve_compatibility");
  assert.equal(r.isError, false);
  assert.equal(r.data!.compatible, false);
  assert.equal((r.data!.daemon as { available: boolean }).available, false, "unknown, not refused");
});

Deno.test("compatibility: a daemon error during the probe is reported as data", async () => {
  await using rig = toolRig(inOrder(daemonError(500, "internal", "Broken.")));
  const r = await rig.call("portreeve_compatibility");
  assert.equal(r.isError, false);
  assert.equal(r.data!.compatible, false);
});

pinDaemonErrors("portreeve_health", {});
