/**
 * Custody's errors: what a renewer's failure becomes (code, retryable, a scrubbed message),
 * whatever the renewer threw, and the error an explicit renewal rejects with.
 */
import assert from "node:assert/strict";
import { holdLauncherO1, setupCustody as setup, T } from "../../support/custody_fixture.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { FakeRenewalError } from "../../support/fake_renewers.ts";
import {
  CredentialUnavailableError,
  Custody,
  MINUTE_MS,
  RenewalFailedError,
} from "../../../src/custody/mod.ts";

const unavailable = () => new FakeRenewalError("portreeve_unavailable", true, "daemon is down");
const expired = () => new FakeRenewalError("portreeve_lease_expired", false, "lease expired");

Deno.test("errors without code or retryable count as terminal portreeve_internal", async () => {
  const { clock, renewers, custody, t0 } = setup();
  const a = custody.holdLease({ leaseId: "L1", token: T + "a", expiresAt: t0 + 15_000 });
  const b = custody.holdLease({ leaseId: "L2", token: T + "b", expiresAt: t0 + 15_000 });
  renewers.failNext(new Error("boom"));
  renewers.failNext("not even an error");
  await clock.advance(5_000);
  assert.throws(
    () => custody.useLease(a.handle),
    (e: unknown) =>
      e instanceof CredentialUnavailableError &&
      e.renewalFailure?.code === "portreeve_internal" && e.renewalFailure.message === "boom",
  );
  assert.throws(
    () => custody.useLease(b.handle),
    (e: unknown) =>
      e instanceof CredentialUnavailableError && e.renewalFailure?.message === "renewal failed",
  );
  await custody.close();
});

Deno.test("malformed renewal answers and throwing renewers are recorded, not fatal", async () => {
  const clock = new FakeClock();
  const t0 = clock.now();
  const custody = new Custody({
    clock,
    renewers: {
      renewLease: (leaseId) =>
        leaseId === "L1" ? Promise.resolve({ expiresAt: Number.NaN }) : Promise.reject(expired()),
      renewActivation: () => {
        throw unavailable(); // synchronous throw
      },
      renewLauncher: () =>
        Promise.resolve({ deadlineAt: t0 + 40_000, renewAfterMilliseconds: 10_000 }),
    },
  });
  const a = custody.holdLease({ leaseId: "L1", token: T, expiresAt: t0 + 15_000 });
  const act = custody.holdActivation("A1", [
    { leaseId: "L2", token: T + "2", expiresAt: t0 + 15_000, component: "a", endpoint: "x" },
  ]);
  await clock.advance(5_000);
  assert.throws(
    () => custody.useLease(a.handle),
    (e: unknown) =>
      e instanceof CredentialUnavailableError &&
      e.renewalFailure?.code === "portreeve_invalid_response",
  );
  const use = custody.useActivationLease("A1", act.leases[0].handle);
  assert.equal(use.renewalFailure?.code, "portreeve_unavailable");
  await custody.close();
});

Deno.test("an explicit renewal failure rejects with RenewalFailedError and is recorded", async () => {
  const { renewers, custody, t0 } = setup();
  const op = holdLauncherO1(custody, t0);
  renewers.failNext(unavailable());
  await assert.rejects(
    custody.renewLauncherNow("O1", op.handle, 30),
    (e: unknown) =>
      e instanceof RenewalFailedError && e.code === "portreeve_unavailable" && e.retryable &&
      e.message === "daemon is down" && e.renewalFailure.at === t0,
  );
  assert.equal(custody.heldLauncher("O1")?.custodyExpiresAt, t0 + 10 * MINUTE_MS, "no extension");
  assert.equal(custody.useLauncher("O1", op.handle).renewalFailure?.code, "portreeve_unavailable");
  const details = { reason: "credential_mismatch", operationId: "O1" };
  renewers.failNext(
    new FakeRenewalError("portreeve_invalid_operation_credential", false, "rejected", details),
  );
  await assert.rejects(
    custody.renewLauncherNow("O1", op.handle),
    (e: unknown) =>
      e instanceof RenewalFailedError && e.code === "portreeve_invalid_operation_credential" &&
      !e.retryable && JSON.stringify(e.details) === JSON.stringify(details),
  );
  assert.throws(
    () => custody.useLauncher("O1", op.handle),
    (e: unknown) =>
      e instanceof CredentialUnavailableError &&
      e.message.includes("launcher operation could no longer be renewed") &&
      e.renewalFailure?.code === "portreeve_invalid_operation_credential",
  );
  await custody.close();
});
