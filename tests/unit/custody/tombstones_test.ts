/**
 * What custody keeps of a credential that lapsed (tombstones.ts): the next use of its handle
 * says why, for that handle's own kind and owner only, until custody would have ended; the
 * holder is told once; both are bounded.
 */
import assert from "node:assert/strict";
import {
  holdActivationA1,
  lapsedWith,
  setupCustody as setup,
  T,
} from "../../support/custody_fixture.ts";
import { FakeRenewalError } from "../../support/fake_renewers.ts";
import { CredentialUnavailableError, MINUTE_MS } from "../../../src/custody/mod.ts";
import type { Group, LauncherRenewal } from "../../../src/custody/group.ts";
import { Tombstones } from "../../../src/custody/tombstones.ts";

const expired = () => new FakeRenewalError("portreeve_lease_expired", false, "lease expired");
const FAILURE = { code: "portreeve_lease_expired", message: "lease expired", at: 1_000 };

/** A group of `kind` and `id` with one credential per handle, custody ending at `custodyEnd`. */
function group(
  kind: Group<LauncherRenewal>["kind"],
  id: string,
  handles: string[],
  custodyEnd = 10_000,
): Group<LauncherRenewal> {
  const entry = (handle: string) => ({
    handle,
    leaseId: id,
    secret: "",
    expiresAt: 0,
    component: "",
    endpoint: "",
  });
  return {
    kind,
    id,
    entries: new Map(handles.map((handle) => [handle, entry(handle)])),
    acquiredAt: 0,
    custodyExpiresAt: custodyEnd,
    maximumCustodyExpiresAt: custodyEnd,
    renewAfterMs: Infinity,
    ttlMs: 1,
  };
}

Deno.test("a lapse is reported once, the oldest dropped past the bound, withdrawn on request", () => {
  const tombstones = new Tombstones(2);
  for (const id of ["L1", "L2", "L3"]) tombstones.bury(group("lease", id, [`h${id}`]), FAILURE);
  assert.deepEqual(tombstones.takeLapses().map((l) => l.id), ["L2", "L3"]);
  assert.deepEqual(tombstones.takeLapses(), []);
  tombstones.bury(group("lease", "L4", ["h4"]), FAILURE);
  tombstones.bury(group("lease", "L5", ["h5"]), FAILURE);
  tombstones.unreport("lease", "L4");
  assert.deepEqual(tombstones.takeLapses(), [{ kind: "lease", id: "L5", failure: FAILURE }]);
  tombstones.bury(group("lease", "L6", ["h6"]), FAILURE);
  tombstones.clear();
  assert.deepEqual(tombstones.takeLapses(), []);
  assert.equal(tombstones.has("h6"), false);
});

Deno.test("a tombstone answers for its handle's kind and owner until custody would have ended", () => {
  const tombstones = new Tombstones(8);
  tombstones.bury(group("activation", "A1", ["h1", "h2"], 5_000), FAILURE);
  assert.equal(tombstones.find("activation", "h1", "A1")?.failure, FAILURE);
  assert.equal(tombstones.find("activation", "h2")?.failure, FAILURE);
  assert.equal(tombstones.find("activation", "h1", "A2"), undefined);
  assert.equal(tombstones.find("lease", "h1"), undefined);
  tombstones.forget("h2");
  assert.equal(tombstones.has("h2"), false);
  tombstones.prune(4_999);
  assert.equal(tombstones.has("h1"), true);
  tombstones.prune(5_000);
  assert.equal(tombstones.has("h1"), false);
});

Deno.test("a terminal failure erases and leaves a tombstone until custody expiry", async () => {
  const { clock, renewers, custody, events, t0 } = setup();
  const held = custody.holdLease({ leaseId: "L1", token: T, expiresAt: t0 + 15_000 });
  renewers.failNext(expired());
  await clock.advance(5_000);
  assert.equal(custody.size, 0);
  assert.equal(clock.pending, 0, "renewals stop");
  assert.throws(
    () => custody.useLease(held.handle),
    lapsedWith("portreeve_lease_expired", t0 + 5_000),
  );
  assert.throws(
    () => custody.useLease(held.handle),
    lapsedWith("portreeve_lease_expired", t0 + 5_000),
  );
  assert.deepEqual(events.map((e) => e.type), ["renewal-failed", "erased"]);
  const error = (() => {
    try {
      custody.useLease(held.handle);
    } catch (e) {
      return e as CredentialUnavailableError;
    }
  })()!;
  assert.equal(error.code, "portreeve_credential_unavailable");
  assert.deepEqual(error.details, {
    // Reported in ISO 8601 like every other time a tool returns.
    renewalFailure: {
      code: "portreeve_lease_expired",
      message: "lease expired",
      at: new Date(t0 + 5_000).toISOString(),
    },
  });
  await clock.advanceTo(t0 + 10 * MINUTE_MS);
  assert.throws(
    () => custody.useLease(held.handle),
    (e: unknown) => e instanceof CredentialUnavailableError && e.renewalFailure === undefined,
  );
  assert.equal(renewers.calls.length, 1);
  await custody.close();
});

Deno.test("tombstones keep the handle's binding and are bounded", async () => {
  const { clock, renewers, custody, t0 } = setup({ maxTombstones: 2 });
  const act = custody.holdActivation("A1", [
    { leaseId: "L1", token: T + "1", expiresAt: t0 + 15_000, component: "a", endpoint: "x" },
  ]);
  const h = act.leases[0].handle;
  const leases = ["L2", "L3"].map((leaseId) =>
    custody.holdLease({ leaseId, token: T + leaseId, expiresAt: t0 + 15_000 })
  );
  renewers.failNext(expired(), 3);
  await clock.advance(5_000);
  assert.equal(custody.size, 0);
  // The oldest tombstone (activation) was dropped to keep two.
  assert.throws(
    () => custody.useActivationLease("A1", h),
    (e: unknown) => e instanceof CredentialUnavailableError && e.renewalFailure === undefined,
  );
  assert.throws(
    () => custody.useLease(leases[1].handle),
    lapsedWith("portreeve_lease_expired", t0 + 5_000),
  );
  // A tombstone only speaks to its own kind.
  assert.throws(
    () => custody.useLauncher("L3", leases[1].handle),
    (e: unknown) => e instanceof CredentialUnavailableError && e.renewalFailure === undefined,
  );
  await custody.close();
});

Deno.test("a tombstoned activation handle used with another activation says nothing", async () => {
  const { clock, renewers, custody, t0 } = setup();
  const act = holdActivationA1(custody, t0);
  renewers.failNext(new FakeRenewalError("portreeve_lease_not_pending", false));
  await clock.advance(5_000);
  for (const { handle } of act.leases) {
    assert.throws(
      () => custody.useActivationLease("A1", handle),
      lapsedWith("portreeve_lease_not_pending", t0 + 5_000),
    );
    assert.throws(
      () => custody.useActivationLease("A2", handle),
      (e: unknown) => e instanceof CredentialUnavailableError && e.renewalFailure === undefined,
    );
  }
  await custody.close();
});
