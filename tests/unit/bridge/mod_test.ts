/**
 * The bridge factory's wiring of the approval gate: the approvals a bridge's services carry
 * mint the proofs that bridge's daemon client accepts, and nothing another bridge's approvals
 * mint. No daemon answers here: a request the gate lets through fails on the missing socket
 * (`portreeve_unavailable`), one it keeps back fails with `GateRefusal` before anything is sent.
 */
import assert from "node:assert/strict";
import { createBridge } from "../../../src/bridge/mod.ts";
import { CredentialFragments } from "../../../src/custody/fragments.ts";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { effectOf } from "../../../src/daemon/effects.ts";
import type { Approvals } from "../../../src/catalogue/approval.ts";
import { proofWithoutAsking } from "../../support/approvals.ts";
import { GateRefusal } from "../../../src/daemon/gate.ts";
import { pathOf } from "../../../src/daemon/routes.ts";
import { BridgeError, Codes } from "../../../src/shared/errors.ts";

/** A route every request to which is consequential (a receipt's execute), without segments. */
const ROUTE = ALL_TOOLS.flatMap((tool) => tool.routes).find((route) =>
  effectOf(route.effect, {}).level === "consequential" && !route.path.includes("{")
)!;

/** Where no daemon listens, inside what even .ci/run's read-scoped unit run may read. */
const NOBODY = `${Deno.makeTempDirSync({ prefix: "prmcp-mod-" })}/portreeve.sock`;

function bridge() {
  return createBridge({
    socket: { path: NOBODY, source: "flag" },
    toolset: "full",
    fragments: new CredentialFragments(),
  });
}

/** A proof from `approvals` for ROUTE with `body`, minted without asking (`--approval off`). */
function proof(approvals: Approvals, body: Record<string, unknown>) {
  return proofWithoutAsking(approvals, { route: ROUTE, path: pathOf(ROUTE), body });
}

Deno.test("a bridge's approvals mint what its own daemon client accepts, and only that", async () => {
  assert.ok(ROUTE, "a consequential route without segments");
  const mine = bridge();
  const theirs = bridge();
  try {
    const services = await mine.services();
    const other = await theirs.services();
    const body = { receiptId: crypto.randomUUID() };
    const own = await proof(services.approvals, body);
    await assert.rejects(services.daemon.request(ROUTE, { body, approval: own }), (error) => {
      assert.ok(error instanceof BridgeError, String(error));
      assert.equal(error.code, Codes.unavailable, "let through: it failed on the socket");
      return true;
    });
    const foreign = await proof(other.approvals, body);
    await assert.rejects(
      services.daemon.request(ROUTE, { body, approval: foreign }),
      (error) => error instanceof GateRefusal && /did not mint/.test(error.message),
    );
  } finally {
    await mine.close();
    await theirs.close();
  }
});
