/**
 * The record of held credentials: its input checks name the field and never the value, and
 * its views and expiry read the entries as they are.
 */
import assert from "node:assert/strict";
import { setupCustody } from "../../support/custody_fixture.ts";
import {
  checkedEntry,
  type Entry,
  type Group,
  keyOf,
  soonestExpiry,
  withFailure,
} from "../../../src/custody/group.ts";
import type { LauncherRenewal } from "../../../src/custody/mod.ts";

const TOKEN = "tok_" + "S".repeat(39) + "-secret";

Deno.test("holding validates its input without echoing secrets", async () => {
  const { clock, custody } = setupCustody();
  const now = clock.now();
  const bad = [
    () => custody.holdLease({ leaseId: "", token: TOKEN, expiresAt: now }),
    () => custody.holdLease({ leaseId: "L1", token: "", expiresAt: now }),
    () => custody.holdLease({ leaseId: "L1", token: TOKEN, expiresAt: Number.NaN }),
    () => custody.holdActivation("A1", []),
    () =>
      custody.holdActivation("A1", [
        { leaseId: "L1", token: TOKEN, expiresAt: now, component: "a", endpoint: "x" },
        { leaseId: "L1", token: TOKEN, expiresAt: now, component: "b", endpoint: "x" },
      ]),
    () =>
      custody.holdLauncher({
        operationId: "O1",
        credential: TOKEN,
        deadlineAt: now,
        renewAfterMilliseconds: Number.POSITIVE_INFINITY,
      }),
  ];
  for (const fn of bad) {
    assert.throws(
      fn,
      (error: unknown) => error instanceof TypeError && !error.message.includes(TOKEN),
    );
  }
  assert.equal(custody.size, 0);
  assert.equal(clock.pending, 0);
  await custody.close();
});

Deno.test("checkedEntry names the field, never the value; views read the entries", () => {
  assert.throws(() => checkedEntry("L1", 42, 0, "web", "http"), /the secret must be/);
  assert.throws(() => checkedEntry("L1", TOKEN, "soon", "web", "http"), /expiresAt must be/);
  assert.throws(
    () => checkedEntry("L1", TOKEN, 0, 7, "http"),
    (error: unknown) => error instanceof TypeError && !error.message.includes(TOKEN),
  );
  const entry = (leaseId: string, expiresAt: number): Entry => ({
    handle: `h-${leaseId}`,
    secret: TOKEN,
    component: "web",
    endpoint: leaseId,
    leaseId,
    expiresAt,
  });
  const group: Group<LauncherRenewal> = {
    kind: "activation",
    id: "A1",
    entries: new Map([["L1", entry("L1", 9_000)], ["L2", entry("L2", 4_000)]]),
    acquiredAt: 0,
    custodyExpiresAt: 600_000,
    maximumCustodyExpiresAt: 3_600_000,
    renewAfterMs: Infinity,
    ttlMs: 15_000,
  };
  assert.equal(soonestExpiry(group), 4_000);
  assert.equal(keyOf("activation", "A1"), "activation:A1");
  const failure = { code: "portreeve_unavailable", message: "down", at: 1 };
  assert.deepEqual(withFailure({ a: 1 }, failure), { a: 1, renewalFailure: failure });
  assert.deepEqual(withFailure({ a: 1 }), { a: 1 });
});
