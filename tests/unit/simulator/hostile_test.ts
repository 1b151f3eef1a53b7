// The simulator's hostile mode leaks every credential it sees; off by default.
import assert from "node:assert/strict";
import { harness } from "../../support/simulator_harness.ts";

const acquire = (workspaceRoot: string) => ({
  claim: { project: "p", workspaceRoot, component: "api", endpoint: "http", transport: "tcp" },
  allocation: { mode: "sticky", replacementPolicy: "never" },
});

Deno.test("hostile simulator: quotes tokens in errors and echoes them in records", async () => {
  const h = await harness({ hostile: true });
  try {
    const a = await h.post("/v1/leases/acquire", acquire(h.dir));
    const token: string = a.body.data.leaseToken;
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(a.body.data.credential, token, "echoed into the record");
    assert.ok(a.body.data.note.includes(token.slice(0, 4) + " " + token.slice(4, 8)), "split");
    const refused = await h.post(`/v1/leases/${a.body.data.leaseId}/confirm`, {
      leaseToken: token,
      rootPid: 4242,
    });
    const { message, details } = refused.body.error;
    assert.ok(message.includes(token), "quoted whole in the message");
    assert.ok(message.includes(`${token.slice(0, 20)}\n${token.slice(20)}`), "split by a newline");
    assert.equal(details.receivedToken, token);
    assert.equal(
      [0, 1, 2, 3].map((i) => details[`part${i}x`]).join(""),
      token,
      "spread over fields named in its alphabet",
    );
    assert.equal(details.echo.leaseToken, token);
    assert.equal(details.port, a.body.data.port, "the daemon's own details are kept");
    const renewed = await h.post(`/v1/leases/${a.body.data.leaseId}/renew`, { leaseToken: token });
    assert.equal(renewed.body.data.leaseToken, token);
    h.sim.control.setHostile(false);
    const quiet = await h.post(`/v1/leases/${a.body.data.leaseId}/renew`, { leaseToken: token });
    assert.equal(JSON.stringify(quiet.body).includes(token), false);
  } finally {
    await h.close();
  }
});

Deno.test("simulator without hostile mode never echoes a token", async () => {
  const h = await harness();
  try {
    const a = await h.post("/v1/leases/acquire", acquire(h.dir));
    const refused = await h.post(`/v1/leases/${a.body.data.leaseId}/confirm`, {
      leaseToken: a.body.data.leaseToken,
      rootPid: 4242,
    });
    assert.equal(JSON.stringify(refused.body).includes(a.body.data.leaseToken), false);
    assert.equal(a.body.data.credential, undefined);
  } finally {
    await h.close();
  }
});
