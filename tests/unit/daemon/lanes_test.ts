/** A request that carries a held credential is custody traffic; anything else is new work. */
import assert from "node:assert/strict";
import { carriesCredential, laneOf } from "../../../src/daemon/lanes.ts";

const TOKEN = "t".repeat(43);

Deno.test("every body shape in which the protocol takes a held secret is custody traffic", () => {
  const custody = [
    { leaseToken: TOKEN }, // lease renew
    { leaseToken: TOKEN, rootPid: 14390 }, // lease confirm
    { leaseToken: TOKEN, reason: "startup-error" }, // lease abandon
    { leases: [{ leaseId: "L1", leaseToken: TOKEN }] }, // activation renew
    { leaseId: "L1", leaseToken: TOKEN, bindingKind: "process", rootPid: 1 }, // activation confirm
    { leaseId: "L1", leaseToken: TOKEN }, // activation skip / abandon
    { credential: TOKEN }, // launcher renew
    { credential: TOKEN, completion: { outcome: "succeeded" } }, // launcher complete
  ];
  for (const body of custody) assert.equal(carriesCredential(body), true, JSON.stringify(body));
  const work = [
    {},
    { claim: { project: "p" }, allocation: {} }, // acquire
    { leases: [] },
    { leases: [{ leaseId: "L1" }] },
    { leaseToken: 42 },
    { updates: { leaseTtlMilliseconds: 40_000 } },
  ];
  for (const body of work) assert.equal(carriesCredential(body), false, JSON.stringify(body));
});

Deno.test("custody traffic is due by its credential's expiry, a settlement at once", () => {
  assert.deepEqual(laneOf({ leaseToken: TOKEN }, 1_234), { kind: "custody", dueAt: 1_234 });
  const wallClock = Date.now;
  Date.now = () => 5_678; // what "now" is when a settlement is sent
  try {
    assert.deepEqual(laneOf({ leaseToken: TOKEN, rootPid: 1 }), { kind: "custody", dueAt: 5_678 });
  } finally {
    Date.now = wallClock;
  }
  assert.deepEqual(laneOf({ claim: {} }, 1_234), { kind: "work" });
});
