/**
 * What custody holds (holdings.ts): a credential under its id and its handle, a second hold of
 * an id replacing the first, a group that cannot get its handles leaving nothing behind, and no
 * handle minted twice while it still means something.
 */
import assert from "node:assert/strict";
import { setupCustody as setup, T } from "../../support/custody_fixture.ts";
import { FakeRenewalError } from "../../support/fake_renewers.ts";
import { CredentialUnavailableError, HandleCollisionError } from "../../../src/custody/mod.ts";

Deno.test("holding the same id again replaces the old secret and handle", async () => {
  const { clock, renewers, custody, t0 } = setup();
  const old = custody.holdLease({ leaseId: "L1", token: T + "old", expiresAt: t0 + 15_000 });
  const fresh = custody.holdLease({ leaseId: "L1", token: T + "new", expiresAt: t0 + 15_000 });
  assert.notEqual(old.handle, fresh.handle);
  assert.throws(() => custody.useLease(old.handle), CredentialUnavailableError);
  assert.equal(custody.useLease(fresh.handle).token, T + "new");
  assert.equal(custody.size, 1);
  await clock.advance(5_000);
  assert.deepEqual(renewers.calls.map((c) => c.secrets), [[T + "new"]]);
  await custody.close();
});

Deno.test("a handle collision rolls the whole group back", async () => {
  const { clock, custody } = setup({ randomFill: (bytes) => bytes.fill(7) });
  const now = clock.now();
  assert.throws(
    () =>
      custody.holdActivation("A1", [
        { leaseId: "L1", token: T, expiresAt: now + 15_000, component: "a", endpoint: "x" },
        {
          leaseId: "L2",
          token: T + "2",
          expiresAt: now + 15_000,
          component: "b",
          endpoint: "x",
        },
      ]),
    HandleCollisionError,
  );
  assert.equal(custody.size, 0);
  assert.equal(custody.heldActivation("A1"), undefined);
  assert.equal(clock.pending, 0);
  // With a single entry the constant source works once, then collides with the held handle.
  const first = custody.holdLease({ leaseId: "L1", token: T, expiresAt: now + 15_000 });
  assert.throws(
    () => custody.holdLease({ leaseId: "L9", token: T + "9", expiresAt: now + 15_000 }),
    (error: unknown) =>
      error instanceof HandleCollisionError &&
      error.code === "portreeve_credential_handle_collision",
  );
  assert.equal(custody.useLease(first.handle).token, T);
  assert.equal(custody.size, 1);
  await custody.close();
});

Deno.test("a handle a tombstone still explains is never given to another credential", async () => {
  const { clock, renewers, custody, t0 } = setup({ randomFill: (bytes) => bytes.fill(7) });
  const lapsed = custody.holdLease({ leaseId: "L1", token: T, expiresAt: t0 + 15_000 });
  renewers.failNext(new FakeRenewalError("portreeve_lease_expired", false, "lease expired"));
  await clock.advance(5_000);
  assert.equal(custody.size, 0);
  assert.throws(
    () => custody.holdLease({ leaseId: "L2", token: T + "2", expiresAt: t0 + 20_000 }),
    HandleCollisionError,
  );
  assert.throws(
    () => custody.useLease(lapsed.handle),
    (e: unknown) => e instanceof CredentialUnavailableError && e.renewalFailure !== undefined,
  );
  await custody.close();
});
