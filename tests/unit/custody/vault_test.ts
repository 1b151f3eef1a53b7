/** The vault's lifecycle: custody windows, extension, settlement, replay lookups and close. */
import assert from "node:assert/strict";
import { holdLauncherO1, setupCustody as setup, T } from "../../support/custody_fixture.ts";
import {
  CredentialUnavailableError,
  type Custody,
  CustodyClosedError,
  CustodyLimitError,
  MINUTE_MS,
} from "../../../src/custody/mod.ts";

function holdThree(custody: Custody, t0: number) {
  return custody.holdActivation("A1", [
    { leaseId: "L1", token: T + "1", expiresAt: t0 + 15_000, component: "web", endpoint: "http" },
    { leaseId: "L2", token: T + "2", expiresAt: t0 + 15_000, component: "db", endpoint: "pg" },
    { leaseId: "L3", token: T + "3", expiresAt: t0 + 15_000, component: "cache", endpoint: "x" },
  ]);
}

Deno.test("custody lasts 10 minutes, then erases and stops renewing", async () => {
  const { clock, renewers, custody, events, t0 } = setup();
  const held = custody.holdLease({ leaseId: "L1", token: T, expiresAt: t0 + 15_000 });
  assert.equal(held.custodyExpiresAt, t0 + 10 * MINUTE_MS);
  assert.equal(held.maximumCustodyExpiresAt, t0 + 60 * MINUTE_MS);
  await clock.advance(10 * MINUTE_MS - 1);
  assert.equal(custody.useLease(held.handle).token, T);
  assert.equal(renewers.calls.length, 119); // every 5 s: 5 s … 595 s
  await clock.advance(1);
  assert.equal(custody.size, 0);
  assert.equal(clock.pending, 0, "no timer survives expiry");
  assert.deepEqual(events.at(-1), {
    type: "erased",
    kind: "lease",
    id: "L1",
    credentialCount: 1,
    reason: "custody-expired",
  });
  await clock.advance(60 * MINUTE_MS);
  assert.equal(renewers.calls.length, 119);
  assert.throws(
    () => custody.useLease(held.handle),
    (e: unknown) => e instanceof CredentialUnavailableError && e.renewalFailure === undefined,
  );
  assert.equal(custody.heldLease("L1"), undefined);
  await custody.close();
});

Deno.test("activation custody extends up to 60 minutes from acquisition, idempotently", async () => {
  const { clock, renewers, custody, t0 } = setup();
  holdThree(custody, t0);
  await clock.advance(5 * MINUTE_MS);
  const first = custody.extendActivation("A1", 30);
  assert.deepEqual(first, {
    changed: true,
    activationId: "A1",
    custodyExpiresAt: t0 + 30 * MINUTE_MS,
    maximumCustodyExpiresAt: t0 + 60 * MINUTE_MS,
    credentialCount: 3,
  });
  assert.deepEqual(custody.extendActivation("A1", 30), { ...first, changed: false });
  assert.deepEqual(
    custody.extendActivation("A1", 10),
    { ...first, changed: false },
    "never shortens",
  );
  const max = custody.extendActivation("A1", 60);
  assert.equal(max.changed, true);
  assert.equal(max.custodyExpiresAt, t0 + 60 * MINUTE_MS);
  assert.equal(custody.extendActivation("A1", 60).changed, false);
  for (const bad of [61, 90, 9, 0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(
      () => custody.extendActivation("A1", bad),
      (e: unknown) =>
        e instanceof CustodyLimitError && e.code === "portreeve_invalid_input" &&
        e.minimumMinutes === 10 && e.maximumMinutes === 60 && Object.is(e.requestedMinutes, bad),
    );
  }
  assert.match(
    (() => {
      try {
        custody.extendActivation("A1", 61);
      } catch (e) {
        return (e as Error).message;
      }
      return "";
    })(),
    /at most|between 10 and 60 minutes/,
  );
  await clock.advanceTo(t0 + 60 * MINUTE_MS - 1);
  assert.equal(custody.size, 3);
  const callsBefore = renewers.calls.length;
  await clock.advance(1);
  assert.equal(custody.size, 0);
  assert.equal(clock.pending, 0);
  await clock.advance(MINUTE_MS);
  assert.equal(renewers.calls.length, callsBefore);
  assert.throws(() => custody.extendActivation("A1", 30), CredentialUnavailableError);
  await custody.close();
});

Deno.test("extending an unknown activation is unavailable; limits are checked first", async () => {
  const { custody } = setup();
  assert.throws(() => custody.extendActivation("nope", 30), CredentialUnavailableError);
  assert.throws(() => custody.extendActivation("nope", 61), CustodyLimitError);
  await custody.close();
});

Deno.test("renewLauncherNow heartbeats at once, extends, and reschedules", async () => {
  const { clock, renewers, custody, t0 } = setup();
  const op = holdLauncherO1(custody, t0);
  await clock.advance(4_000);
  const beat = await custody.renewLauncherNow("O1", op.handle, 45);
  assert.deepEqual(renewers.calls.map((c) => c.at - t0), [4_000]);
  assert.deepEqual(beat, {
    handle: op.handle,
    operationId: "O1",
    deadlineAt: t0 + 34_000,
    renewAfterMilliseconds: 10_000,
    custodyExpiresAt: t0 + 45 * MINUTE_MS,
    maximumCustodyExpiresAt: t0 + 60 * MINUTE_MS,
    renewal: { deadlineAt: t0 + 34_000, renewAfterMilliseconds: 10_000 },
    custodyChanged: true,
  });
  const again = await custody.renewLauncherNow("O1", op.handle, 45);
  assert.equal(again.custodyChanged, false);
  assert.equal((await custody.renewLauncherNow("O1", op.handle)).custodyChanged, false);
  await clock.advance(10_000);
  assert.deepEqual(renewers.calls.map((c) => c.at - t0), [4_000, 4_000, 4_000, 14_000]);
  await assert.rejects(custody.renewLauncherNow("O1", op.handle, 61), CustodyLimitError);
  assert.equal(renewers.calls.length, 4, "a refused extension makes no daemon call");
  await assert.rejects(custody.renewLauncherNow("O2", op.handle), CredentialUnavailableError);
  await clock.advanceTo(t0 + 45 * MINUTE_MS);
  assert.equal(custody.size, 0);
  await custody.close();
});

Deno.test("settlement erases at once and is one-shot", async () => {
  const { clock, renewers, custody, t0 } = setup();
  const lease = custody.holdLease({ leaseId: "L1", token: T, expiresAt: t0 + 15_000 });
  const op = holdLauncherO1(custody, t0);
  assert.equal(custody.settleLease(lease.handle), true);
  assert.equal(custody.settleLease(lease.handle), false);
  assert.throws(() => custody.useLease(lease.handle), CredentialUnavailableError);
  assert.equal(custody.heldLease("L1"), undefined);
  assert.equal(custody.settleLauncher("O1"), true);
  assert.equal(custody.settleLauncher("O1"), false);
  assert.throws(() => custody.useLauncher("O1", op.handle), CredentialUnavailableError);
  await assert.rejects(custody.renewLauncherNow("O1", op.handle), CredentialUnavailableError);
  assert.equal(custody.size, 0);
  assert.equal(clock.pending, 0);
  await clock.advance(MINUTE_MS);
  assert.equal(renewers.calls.length, 0);
  await custody.close();
});

Deno.test("activation settlement erases every credential no longer leased", async () => {
  const { clock, renewers, custody, events, t0 } = setup();
  const [h1, h2, h3] = holdThree(custody, t0).leases.map((l) => l.handle);
  // Confirming L1 (the daemon still reports L2 and L3 as leased).
  assert.equal(custody.settleActivationLeases("A1", new Set(["L2", "L3"])), 1);
  assert.throws(() => custody.useActivationLease("A1", h1), CredentialUnavailableError);
  assert.equal(custody.useActivationLease("A1", h2).token, T + "2");
  assert.deepEqual(custody.heldActivation("A1")?.leases.map((l) => l.leaseId), ["L2", "L3"]);
  assert.equal(custody.heldActivation("A1")?.credentialCount, 2);
  await clock.advance(5_000);
  assert.deepEqual(renewers.calls[0].secrets, [T + "2", T + "3"], "renews only what is held");
  // A required endpoint failed: the daemon cancelled the siblings too.
  assert.equal(custody.settleActivationLeases("A1", new Set()), 2);
  for (const h of [h2, h3]) {
    assert.throws(() => custody.useActivationLease("A1", h), CredentialUnavailableError);
  }
  assert.equal(custody.heldActivation("A1"), undefined);
  assert.equal(custody.size, 0);
  assert.equal(clock.pending, 0);
  assert.equal(custody.settleActivationLeases("A1", new Set()), 0);
  assert.deepEqual(
    events.filter((e) => e.type === "erased").map((e) => e.type === "erased" && e.credentialCount),
    [1, 2],
  );
  await custody.close();
});

Deno.test("an activation or launcher handle used with the wrong owner is unavailable", async () => {
  const { custody, t0 } = setup();
  const act = holdThree(custody, t0);
  const op = holdLauncherO1(custody, t0);
  const h = act.leases[0].handle;
  assert.throws(() => custody.useActivationLease("A2", h), CredentialUnavailableError);
  assert.throws(() => custody.useLauncher("O2", op.handle), CredentialUnavailableError);
  assert.throws(() => custody.useLauncher("O1", h), CredentialUnavailableError);
  const use = custody.useActivationLease("A1", h);
  assert.deepEqual(use, { leaseId: "L1", token: T + "1", component: "web", endpoint: "http" });
  assert.deepEqual(custody.useLauncher("O1", op.handle), { credential: T });
  await custody.close();
});

Deno.test("close() aborts renewals, cancels timers, erases everything", async () => {
  const { clock, renewers, custody, t0 } = setup();
  const lease = custody.holdLease({ leaseId: "L1", token: T, expiresAt: t0 + 15_000 });
  holdThree(custody, t0);
  const op = holdLauncherO1(custody, t0);
  renewers.block();
  await clock.advance(5_000); // lease and activation renewals now hang
  assert.equal(renewers.calls.length, 2);
  const explicit = custody.renewLauncherNow("O1", op.handle);
  assert.equal(renewers.calls.length, 3);
  await custody.close();
  assert.ok(renewers.calls.every((c) => c.signal.aborted), "in-flight renewals aborted");
  await assert.rejects(explicit, CustodyClosedError);
  assert.equal(custody.size, 0);
  assert.equal(clock.pending, 0);
  assert.equal(custody.closed, true);
  assert.throws(() => custody.useLease(lease.handle), CustodyClosedError);
  assert.throws(
    () => custody.holdLease({ leaseId: "L2", token: T, expiresAt: t0 + 15_000 }),
    CustodyClosedError,
  );
  assert.throws(() => custody.heldLease("L1"), CustodyClosedError);
  assert.equal(custody.settleLease(lease.handle), false);
  assert.equal(custody.settleLauncher("O1"), false);
  await custody.close();
  await clock.advance(60 * MINUTE_MS);
  assert.equal(renewers.calls.length, 3);
});

Deno.test("replay lookups return the existing handles while held", async () => {
  const { custody, t0 } = setup();
  const lease = custody.holdLease({ leaseId: "L9", token: T, expiresAt: t0 + 15_000 });
  const act = holdThree(custody, t0);
  const op = holdLauncherO1(custody, t0);
  assert.deepEqual(custody.heldLease("L9"), lease);
  assert.deepEqual(custody.heldActivation("A1"), act);
  assert.deepEqual(custody.heldLauncher("O1"), op);
  assert.equal(custody.heldLease("L1"), undefined, "activation leases are not standalone leases");
  assert.equal(custody.heldActivation("O1"), undefined);
  await custody.close();
});
