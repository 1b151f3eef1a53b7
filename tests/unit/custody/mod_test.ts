/** What custody promises as a module: no public result, error, event or line holds a secret. */
import assert from "node:assert/strict";
import { holdLauncherO1 } from "../../support/custody_fixture.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { FakeRenewalError, FakeRenewers } from "../../support/fake_renewers.ts";
import { Custody, type CustodyEvent, MINUTE_MS } from "../../../src/custody/mod.ts";

// Realistic secrets: 43 base64url characters, like the daemon's tokens.
const secret = (n: number) => `Sx${n}` + "k9_Q-".repeat(8).slice(0, 43 - 2 - String(n).length);
const SECRETS = [1, 2, 3, 4, 5, 6].map(secret);

/** Serialises a value or error every way a log line or a result might. */
function render(value: unknown): string {
  if (value instanceof Error) {
    const fields = { ...value, details: (value as { details?: unknown }).details };
    return [
      String(value),
      value.message,
      value.stack ?? "",
      JSON.stringify(fields),
      Deno.inspect(value),
    ]
      .join("\n");
  }
  return JSON.stringify(value) + "\n" + Deno.inspect(value, { depth: 10 });
}

Deno.test("no public result, error, event or console line contains a raw secret", async () => {
  const clock = new FakeClock();
  const t0 = clock.now();
  const renewers = new FakeRenewers(clock);
  const events: CustodyEvent[] = [];
  const seen: unknown[] = [];
  const console_: string[] = [];
  const originals = {
    log: console.log,
    error: console.error,
    warn: console.warn,
    info: console.info,
    debug: console.debug,
  };
  for (const name of Object.keys(originals) as (keyof typeof originals)[]) {
    console[name] = (...args: unknown[]) => console_.push(args.map(String).join(" "));
  }
  const record = <T>(value: T): T => {
    seen.push(value);
    return value;
  };
  const attempt = async (fn: () => unknown) => {
    try {
      record(await fn());
    } catch (error) {
      seen.push(error);
    }
  };
  try {
    const custody = new Custody({ clock, renewers, onEvent: (e) => events.push(e) });
    const [s1, s2, s3, s4, s5, s6] = SECRETS;
    const lease = record(custody.holdLease({ leaseId: "L1", token: s1, expiresAt: t0 + 15_000 }));
    const act = record(custody.holdActivation("A1", [
      { leaseId: "L2", token: s2, expiresAt: t0 + 15_000, component: "web", endpoint: "http" },
      { leaseId: "L3", token: s3, expiresAt: t0 + 15_000, component: "db", endpoint: "pg" },
    ]));
    const op = record(holdLauncherO1(custody, t0, { credential: s4 }));
    const doomed = record(custody.holdLease({ leaseId: "L5", token: s5, expiresAt: t0 + 15_000 }));
    const flaky = record(custody.holdLease({ leaseId: "L6", token: s6, expiresAt: t0 + 15_000 }));
    for (const handle of [lease.handle, op.handle, ...act.leases.map((l) => l.handle)]) {
      assert.ok(SECRETS.every((s) => !handle.includes(s)));
    }
    // Renewers that echo the secret they were sent: custody must scrub it.
    renewers.failNext(new FakeRenewalError("portreeve_internal", true, `bad token ${s1} here`));
    renewers.failNext(new FakeRenewalError("portreeve_lease_expired", false, `expired ${s2}`));
    renewers.failNext(new FakeRenewalError(s3, false, `code is the secret`));
    renewers.failNext(
      new FakeRenewalError("portreeve_unavailable", true, `x${s5}y ${"Z".repeat(50)}`),
    );
    await clock.advance(5_000);
    await attempt(() => custody.useLease(lease.handle).renewalFailure);
    await attempt(() => custody.useActivationLease("A1", act.leases[0].handle));
    await attempt(() => custody.useLease(doomed.handle).renewalFailure);
    await attempt(() => custody.useLease(flaky.handle).renewalFailure);
    await attempt(() => custody.useLease("A".repeat(43)));
    await attempt(() => custody.useLauncher("O2", op.handle));
    await attempt(() => custody.extendActivation("A1", 61));
    await attempt(() => custody.renewLauncherNow("O1", op.handle, 30));
    await attempt(() => custody.renewLauncherNow("O1", op.handle, 90));
    renewers.failNext(
      new FakeRenewalError("portreeve_invalid_operation_credential", false, s4, { echo: s4 }),
    );
    await attempt(() => custody.renewLauncherNow("O1", op.handle));
    await attempt(() => custody.useLauncher("O1", op.handle));
    await attempt(() => custody.heldLease("L1"));
    await attempt(() => custody.heldActivation("A1"));
    await attempt(() => custody.heldLauncher("O1"));
    await attempt(() => custody.settleLease(lease.handle));
    await attempt(() => custody.settleActivationLeases("A1", new Set()));
    await attempt(() => custody.holdLease({ leaseId: "", token: s1, expiresAt: t0 }));
    await attempt(() => custody.holdLease({ leaseId: "L7", token: s1, expiresAt: Number.NaN }));
    seen.push(custody, JSON.stringify(custody), Deno.inspect(custody, { depth: 10 }));
    await clock.advance(10 * MINUTE_MS);
    await custody.close();
    await attempt(() => custody.useLease(lease.handle));
    await attempt(() => custody.holdLease({ leaseId: "L8", token: s1, expiresAt: t0 }));

    assert.ok(events.length >= 8, "events were produced");
    assert.ok(seen.filter((v) => v instanceof Error).length >= 10, "errors were produced");
    const everything = [...seen.map(render), ...events.map(render), ...console_].join("\n");
    for (const s of SECRETS) {
      assert.ok(!everything.includes(s), `secret ${SECRETS.indexOf(s) + 1} leaked`);
    }
    assert.ok(everything.includes("[redacted]"), "echoed secrets were scrubbed, not dropped");
    assert.deepEqual(console_, [], "custody writes nothing to the console");
  } finally {
    Object.assign(console, originals);
  }
});

Deno.test("events carry ids and codes but never handles", async () => {
  const clock = new FakeClock();
  const renewers = new FakeRenewers(clock);
  const events: CustodyEvent[] = [];
  const custody = new Custody({ clock, renewers, onEvent: (e) => events.push(e) });
  const held = custody.holdLease({
    leaseId: "L1",
    token: SECRETS[0],
    expiresAt: clock.now() + 15_000,
  });
  renewers.failNext(new FakeRenewalError("portreeve_unavailable", true));
  await clock.advance(10_000);
  custody.settleLease(held.handle);
  assert.deepEqual(events.map((e) => e.type), ["renewal-failed", "renewed", "erased"]);
  assert.ok(!JSON.stringify(events).includes(held.handle));
  await custody.close();
});
