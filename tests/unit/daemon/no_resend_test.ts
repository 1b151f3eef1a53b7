/**
 * No change is sent twice. When the connection breaks after the daemon had a request, a read
 * may go again once, but a change (a POST that is not marked safe) is not re-sent: it fails
 * once, saying its outcome is unknown (src/daemon/client.ts, `#attempt`). The simulator breaks
 * its answers mid-body; what it received is counted.
 */
import assert from "node:assert/strict";
import { daemonRig, failure } from "../../support/daemon_rig.ts";
import { acquireRoute } from "../../../src/catalogue/tools/leases.ts";
import { get } from "../../../src/daemon/routes.ts";
import { z } from "zod";

const CONFIG = get("/v1/config", z.looseObject({}));

Deno.test("no resend: a change whose connection broke is sent once; a read goes again once", async () => {
  const t = await daemonRig({ label: "no-resend" });
  try {
    // Two clients, each with its verdict judged and a connection pooled before the fault
    // (after a broken answer a client judges the daemon again, which the fault would break).
    const reader = t.another();
    await t.client.request(CONFIG);
    await reader.request(CONFIG);
    const received = (path: string) => t.sim.requests.filter((r) => r.path === path).length;
    t.sim.control.setFault("close-mid-response");

    const change = await failure(t.client.request(acquireRoute, {
      body: {
        claim: {
          project: "no-resend",
          workspaceRoot: t.socketPath,
          component: "api",
          endpoint: "http",
          transport: "tcp",
        },
        allocation: { mode: "ephemeral" },
      },
      capabilities: ["two-phase-allocation-v1"],
    }));
    assert.equal(received("/v1/leases/acquire"), 1, "the change reached the daemon once");
    assert.equal(change.code, "portreeve_unavailable");
    assert.equal(change.details.outcome, "unknown");
    assert.match(change.message, /may or may not have been applied/);

    const before = received("/v1/config");
    const read = await failure(reader.request(CONFIG));
    assert.equal(read.code, "portreeve_unavailable");
    assert.equal(received("/v1/config") - before, 2, "a read is re-sent once");
    assert.equal(read.details.outcome, undefined, "a read has no outcome to doubt");
  } finally {
    await t.done();
  }
});
