/**
 * When the simulator's grants run out. Time here is a base clock the test moves by hand (as a
 * slow machine would move the real one between two steps): by default (`lapses: "advance"`)
 * only the test's own `control.advance` (or `expireLease`) makes them lapse, while timestamps
 * go on following the base clock; under `lapses: "clock"` (the program's, as on the daemon)
 * they lapse when the clock passes them.
 */
import assert from "node:assert/strict";
import { harness } from "../../support/simulator_harness.ts";
import type { Lapses } from "../../../src/simulator/mod.ts";

const T0 = Date.UTC(2026, 10, 30, 12);
const HOUR = 3_600_000;
/** What renewing a lease the daemon has expired answers (its sweep marks it first). */
const LAPSED = "lease_not_pending";

/** A simulator whose base clock the test moves with `pass(ms)`. */
async function world(lapses?: Lapses) {
  let base = T0;
  const h = await harness({ clock: { now: () => base }, lapses });
  return { h, pass: (ms: number) => base += ms };
}

function acquireBody(workspaceRoot: string, component: string) {
  return {
    claim: { project: "p", workspaceRoot, component, endpoint: "http", transport: "tcp" },
    allocation: { mode: "sticky", replacementPolicy: "never" },
  };
}

/** A pending lease and a settings receipt, granted now. */
async function grants(h: Awaited<ReturnType<typeof world>>["h"], component = "api") {
  const lease = (await h.post("/v1/leases/acquire", acquireBody(h.dir, component))).body.data;
  const preview = await h.post("/v1/actions/settings/preview", {
    updates: { excludedPorts: [1] },
  });
  const execute = () =>
    h.post("/v1/actions/settings/execute", { receiptId: preview.body.data.receiptId });
  return { lease, execute };
}

/** A pending lease's renewal: its new expiry, or the daemon's error code. */
async function renew(h: Awaited<ReturnType<typeof world>>["h"], lease: Record<string, string>) {
  const renewed = await h.post(`/v1/leases/${lease.leaseId}/renew`, {
    leaseToken: lease.leaseToken,
  });
  return renewed.body.data?.expiresAt ?? renewed.body.error.code;
}

Deno.test("lapses by the clock: an hour passing ends a lease and a receipt", async () => {
  const { h, pass } = await world("clock");
  try {
    const { lease, execute } = await grants(h);
    pass(HOUR);
    assert.equal(await renew(h, lease), LAPSED);
    assert.equal((await execute()).body.error.details.receiptCode, "receipt_expired");
  } finally {
    await h.close();
  }
});

Deno.test("lapses on advance (the default): an hour passing ends nothing; stamps follow the clock", async () => {
  const { h, pass } = await world();
  try {
    const { lease, execute } = await grants(h);
    pass(HOUR);
    // Renewed from the clock's time, an hour on: the daemon's stamps are the clock's.
    assert.equal(await renew(h, lease), new Date(T0 + HOUR + 15_000).toISOString());
    assert.equal((await h.get(`/v1/ports/${lease.port}`)).body.data.classification, "pending");
    const done = await execute();
    assert.equal(done.body.data.changed, true, JSON.stringify(done.body));
  } finally {
    await h.close();
  }
});

Deno.test("lapses on advance: the test's advance ends what it passes, from where the clock is", async () => {
  const { h, pass } = await world("advance");
  try {
    const { lease, execute } = await grants(h);
    const other = (await grants(h, "web")).lease;
    pass(HOUR); // a slow machine: nothing lapses yet…
    h.sim.control.advance(1); // …until the test moves time, which catches up with the clock
    assert.equal(await renew(h, lease), LAPSED);
    assert.equal((await execute()).body.error.details.receiptCode, "receipt_expired");
    // A lease granted after the advance lives on, until expireLease ends it.
    const fresh = (await grants(h, "worker")).lease;
    pass(HOUR);
    assert.match(await renew(h, fresh), /^\d{4}-/, "renewed: an expiry");
    h.sim.control.expireLease(fresh.leaseId);
    assert.equal(await renew(h, fresh), LAPSED);
    assert.equal(await renew(h, other), LAPSED);
  } finally {
    await h.close();
  }
});
