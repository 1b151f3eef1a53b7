/** Handles: random, bound to their kind and owner, and telling nothing when unusable. */
import assert from "node:assert/strict";
import { holdLauncherO1, setupCustody } from "../../support/custody_fixture.ts";
import {
  CredentialUnavailableError,
  type Custody,
  HANDLE_PATTERN,
  isHandle,
} from "../../../src/custody/mod.ts";

const TOKEN = "tok_" + "S".repeat(39) + "-secret";

/** Lease "L1" and activation "A1" (one lease, "L2"), both with 15 s left. */
function holdLeaseAndActivation(custody: Custody, t0: number) {
  const lease = custody.holdLease({ leaseId: "L1", token: TOKEN, expiresAt: t0 + 15_000 });
  const act = custody.holdActivation("A1", [
    {
      leaseId: "L2",
      token: TOKEN + "2",
      expiresAt: t0 + 15_000,
      component: "web",
      endpoint: "http",
    },
  ]);
  return { lease, act };
}

function decode(handle: string): Uint8Array {
  const b64 = handle.replaceAll("-", "+").replaceAll("_", "/") + "=";
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

Deno.test("handles are 43-char base64url of 32 random bytes and never contain the secret", async () => {
  const { clock, custody } = setupCustody();
  const held = custody.holdLease({ leaseId: "L1", token: TOKEN, expiresAt: clock.now() + 15_000 });
  assert.match(held.handle, HANDLE_PATTERN);
  assert.ok(isHandle(held.handle));
  assert.equal(decode(held.handle).length, 32);
  assert.ok(!held.handle.includes(TOKEN) && !TOKEN.includes(held.handle));
  assert.ok(!JSON.stringify(held).includes(TOKEN));
  assert.deepEqual(Object.keys(held).sort(), [
    "custodyExpiresAt",
    "expiresAt",
    "handle",
    "leaseId",
    "maximumCustodyExpiresAt",
  ]);
  await custody.close();
});

Deno.test("handles are unique and spread over the whole alphabet", async () => {
  const { clock, custody } = setupCustody();
  const seen = new Set<string>();
  const chars = new Set<string>();
  for (let i = 0; i < 500; i++) {
    const { handle } = custody.holdLease({
      leaseId: `L${i}`,
      token: `${TOKEN}${i}`,
      expiresAt: clock.now() + 15_000,
    });
    seen.add(handle);
    for (const c of handle.slice(0, 42)) chars.add(c);
  }
  assert.equal(seen.size, 500);
  assert.equal(chars.size, 64, "every base64url character occurs");
  assert.equal(custody.size, 500);
  await custody.close();
  assert.equal(clock.pending, 0);
});

Deno.test("isHandle rejects anything but exactly 43 base64url characters", () => {
  assert.ok(!isHandle("a".repeat(42)));
  assert.ok(!isHandle("a".repeat(44)));
  assert.ok(!isHandle("a".repeat(42) + "="));
  assert.ok(!isHandle("a".repeat(42) + "+"));
  assert.ok(!isHandle(43));
  assert.ok(isHandle("a".repeat(43)));
});

Deno.test("a handle from one Custody is unknown to another", async () => {
  const a = setupCustody();
  const b = setupCustody();
  const held = a.custody.holdLease({
    leaseId: "L1",
    token: TOKEN,
    expiresAt: a.clock.now() + 15_000,
  });
  assert.throws(() => b.custody.useLease(held.handle), CredentialUnavailableError);
  assert.equal(b.custody.heldLease("L1"), undefined);
  assert.equal(a.custody.useLease(held.handle).token, TOKEN);
  await a.custody.close();
  await b.custody.close();
});

Deno.test("a handle is bound to its kind", async () => {
  const { custody, t0 } = setupCustody();
  const { lease, act } = holdLeaseAndActivation(custody, t0);
  const op = holdLauncherO1(custody, t0, { credential: TOKEN + "3" });
  const actHandle = act.leases[0].handle;
  assert.throws(() => custody.useActivationLease("A1", lease.handle), CredentialUnavailableError);
  assert.throws(() => custody.useLauncher("L1", lease.handle), CredentialUnavailableError);
  assert.throws(() => custody.useLease(actHandle), CredentialUnavailableError);
  assert.throws(() => custody.useLauncher("A1", actHandle), CredentialUnavailableError);
  assert.throws(() => custody.useLease(op.handle), CredentialUnavailableError);
  assert.throws(() => custody.useActivationLease("O1", op.handle), CredentialUnavailableError);
  assert.throws(() => custody.useLease("not-a-handle"), CredentialUnavailableError);
  // Misuse erases nothing.
  assert.equal(custody.size, 3);
  assert.equal(custody.settleLease(actHandle), false);
  assert.equal(custody.useActivationLease("A1", actHandle).token, TOKEN + "2");
  await custody.close();
});

Deno.test("every unusable handle gets the same error", async () => {
  const { custody, t0 } = setupCustody();
  const { lease, act } = holdLeaseAndActivation(custody, t0);
  const messages = new Set<string>();
  const capture = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      assert.ok(error instanceof CredentialUnavailableError);
      assert.equal(error.code, "portreeve_credential_unavailable");
      assert.equal(error.retryable, false);
      assert.equal(error.renewalFailure, undefined);
      messages.add(error.message);
      return;
    }
    assert.fail("expected CredentialUnavailableError");
  };
  capture(() => custody.useLease("x".repeat(43)));
  capture(() => custody.useActivationLease("A2", act.leases[0].handle));
  capture(() => custody.useLease(act.leases[0].handle));
  custody.settleLease(lease.handle);
  capture(() => custody.useLease(lease.handle));
  assert.equal(messages.size, 1);
  await custody.close();
});
