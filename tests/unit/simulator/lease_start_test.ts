/**
 * The simulator sets a lease's expiry as the real daemon does: from the start of the acquire
 * (when the daemon took the request in), not from its answer, so an acquire that waited its
 * turn in a serial daemon is answered with that much less of its TTL left, or already expired.
 * A renewal, like the daemon's, sets its expiry when it is served and is refused once the lease
 * it renews has expired. Time is the simulator's own clock over a fixed base, and latency waits
 * are a fake sleep released by the test: no real time passes.
 */
import assert from "node:assert/strict";
import { type Harness, harness, type Reply } from "../../support/simulator_harness.ts";

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const TTL = 15_000;
const CAPS = ["two-phase-allocation-v1"];

function acquireBody(workspaceRoot: string, component: string) {
  return {
    claim: { project: "p", workspaceRoot, component, endpoint: "http", transport: "tcp" },
    allocation: { mode: "sticky", replacementPolicy: "never" },
  };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 2));
  assert.ok(check(), "condition not reached");
}

/** A serial simulator whose latency waits the test releases one by one. */
async function serialSimulator() {
  const waits: (() => void)[] = [];
  const h = await harness({
    latencyMs: 1_000,
    serial: true,
    clock: { now: () => T0 },
    sleep: () => new Promise<void>((release) => waits.push(release)),
  });
  /** Lets the request in service through, once its latency wait has begun. */
  const serveNext = async () => {
    await until(() => waits.length > 0);
    waits.shift()!();
  };
  return { h, serveNext };
}

/** Sends a POST and returns once the simulator has it, its answer still to come. */
async function arrive(h: Harness, path: string, body: Record<string, unknown>) {
  const seen = h.sim.requests.length;
  const answer: Promise<Reply> = h.post(path, body, { capabilities: CAPS });
  await until(() => h.sim.requests.length > seen);
  return { answer };
}

Deno.test("an acquire's expiry counts from its start: one that waited its turn arrives with less", async () => {
  const { h, serveNext } = await serialSimulator();
  try {
    const { answer: first } = await arrive(h, "/v1/leases/acquire", acquireBody(h.dir, "a"));
    const { answer: second } = await arrive(h, "/v1/leases/acquire", acquireBody(h.dir, "b"));
    await serveNext();
    const a = (await first).body.data;
    assert.equal(a.expiresAt, new Date(T0 + TTL).toISOString());
    // The second acquire waits 9 s behind the first, then is served: its lease has 6 s left.
    h.sim.control.advance(9_000);
    await serveNext();
    const b = (await second).body.data;
    assert.equal(b.expiresAt, new Date(T0 + TTL).toISOString(), "from its arrival, not its answer");
  } finally {
    await h.close();
  }
});

Deno.test("an acquire served after its TTL arrives already expired; its port is free again", async () => {
  const { h, serveNext } = await serialSimulator();
  try {
    const { answer } = await arrive(h, "/v1/leases/acquire", acquireBody(h.dir, "a"));
    h.sim.control.advance(TTL + 2_000);
    await serveNext();
    const lease = (await answer).body.data;
    assert.equal(lease.expiresAt, new Date(T0 + TTL).toISOString());
    // The next acquire sweeps it away and may take the same port.
    const { answer: next } = await arrive(h, "/v1/leases/acquire", acquireBody(h.dir, "b"));
    await serveNext();
    assert.equal((await next).body.data.port, lease.port);
  } finally {
    await h.close();
  }
});

Deno.test("a renewal sets its expiry when served, and is refused once the lease has expired", async () => {
  const { h, serveNext } = await serialSimulator();
  try {
    const { answer: first } = await arrive(h, "/v1/leases/acquire", acquireBody(h.dir, "a"));
    const { answer: second } = await arrive(h, "/v1/leases/acquire", acquireBody(h.dir, "b"));
    await serveNext();
    await serveNext();
    const [a, b] = [(await first).body.data, (await second).body.data];
    const renew = (lease: { leaseId: string; leaseToken: string }) =>
      arrive(h, `/v1/leases/${lease.leaseId}/renew`, { leaseToken: lease.leaseToken });
    const { answer: renewedA } = await renew(a);
    const { answer: renewedB } = await renew(b);
    h.sim.control.advance(10_000);
    await serveNext();
    assert.equal((await renewedA).body.data.expiresAt, new Date(T0 + 10_000 + TTL).toISOString());
    // B's renewal waited in the queue past B's expiry: the daemon refuses it.
    h.sim.control.advance(6_000);
    await serveNext();
    const refused = await renewedB;
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, "lease_not_pending");
  } finally {
    await h.close();
  }
});
