/**
 * One renewal attempt (renewal.ts): its answer reaches only the credentials still held, and
 * it ends when aborted or timed out even if the renewer never answers (a malformed answer or a
 * throwing renewer: errors_test.ts).
 */
import assert from "node:assert/strict";
import { holdActivationA1, setupCustody as setup, T } from "../../support/custody_fixture.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import {
  CredentialUnavailableError,
  type LauncherRenewal,
  RenewalTimeoutError,
  type Renewers,
} from "../../../src/custody/mod.ts";
import type { Group } from "../../../src/custody/group.ts";
import { performRenewal } from "../../../src/custody/renewal.ts";

Deno.test("a successful batch racing a partial settlement updates only held leases", async () => {
  const { clock, renewers, custody, t0 } = setup();
  const act = holdActivationA1(custody, t0);
  const release = renewers.block();
  await clock.advance(5_000);
  custody.settleActivationLeases("A1", new Set(["L2"]));
  release();
  await clock.flush();
  assert.deepEqual(custody.heldActivation("A1")?.leases.map((l) => [l.leaseId, l.expiresAt]), [
    ["L2", t0 + 20_000],
  ]);
  assert.throws(
    () => custody.useActivationLease("A1", act.leases[0].handle),
    CredentialUnavailableError,
  );
  assert.equal(custody.size, 1);
  await custody.close();
});

/** Renewers that never answer and never look at their signal. */
const DEAF: Renewers = {
  renewLease: () => new Promise(() => {}),
  renewActivation: () => new Promise(() => {}),
  renewLauncher: () => new Promise(() => {}),
};

Deno.test("an attempt ends at once when aborted or timed out, though its renewer never answers", async () => {
  const clock = new FakeClock();
  const expiresAt = clock.now() + 15_000;
  const entry = { handle: "h1", leaseId: "L1", secret: T, expiresAt, component: "", endpoint: "" };
  const group: Group<LauncherRenewal> = {
    kind: "lease",
    id: "L1",
    entries: new Map([["h1", entry]]),
    acquiredAt: clock.now(),
    custodyExpiresAt: clock.now() + 600_000,
    maximumCustodyExpiresAt: clock.now() + 3_600_000,
    renewAfterMs: Infinity,
    ttlMs: 15_000,
  };
  const sent = [{ handle: "h1", leaseId: "L1", token: T }];
  const call = { clock, renewers: DEAF, timeoutMs: 1_000, dueAt: expiresAt };
  const controller = new AbortController();
  const aborted = performRenewal(call, group, sent, controller);
  const settled = new Error("settled meanwhile");
  controller.abort(settled);
  assert.deepEqual(await aborted, { ok: false, error: settled });
  assert.equal(clock.pending, 0, "its timeout is cleared");
  const timedOut = performRenewal(call, group, sent, new AbortController());
  await clock.advance(1_000);
  const outcome = await timedOut;
  assert.ok(!outcome.ok && outcome.error instanceof RenewalTimeoutError);
  assert.equal(entry.expiresAt, expiresAt, "nothing applied");
});
