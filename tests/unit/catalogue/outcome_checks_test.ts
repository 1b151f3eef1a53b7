/**
 * Every state-changing route a tool declares names, with its declaration, the read that
 * settles a lost answer — a tool that exists; the POSTs that only read (re-sent safely) need
 * none. Failures name the tool and the route.
 */
import assert from "node:assert/strict";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { PREVIEW_CHECK, withOutcomeCheck } from "../../../src/catalogue/outcome_checks.ts";
import { BridgeError } from "../../../src/shared/errors.ts";
import { nextStepFor } from "../../../src/shared/error_codes.ts";
import { possibleEffects } from "../../../src/daemon/effects.ts";

const names = new Set(ALL_TOOLS.map((tool) => tool.name));

for (const tool of ALL_TOOLS) {
  Deno.test(`${tool.name}: each route that changes state names a read that settles it`, () => {
    for (const route of tool.routes) {
      const changes = possibleEffects(route.effect).some((effect) => effect.level !== "read");
      if (!changes) {
        assert.equal(route.check, undefined, `${route.route} only reads: nothing to settle`);
        continue;
      }
      assert.ok(route.check, `${route.route} changes state but names no outcome check`);
      if (route.check === PREVIEW_CHECK) continue;
      assert.ok(names.has(route.check.tool), `${route.route}: no tool ${route.check.tool}`);
    }
  });
}

Deno.test("an unknown outcome gains the check in its details, and so in its next step", () => {
  const acquire = ALL_TOOLS.find((tool) => tool.name === "portreeve_lease_confirm")!;
  const confirm = acquire.routes.find((r) => r.route === "POST /v1/leases/{leaseId}/confirm")!;
  const lost = new BridgeError("portreeve_invalid_response", "The answer was cut off.", false, {
    outcome: "unknown",
  });
  const checked = withOutcomeCheck(lost, confirm) as BridgeError;
  assert.equal(checked.details.checkWith, "portreeve_port_inspect");
  assert.equal(checked.message, lost.message, "the message says what happened, unchanged");
  assert.match(
    nextStepFor(checked.code, checked.details),
    /may have been applied: before repeating it, call portreeve_port_inspect on the leased port/,
  );
  const known = new BridgeError("portreeve_conflict", "held", false, {});
  assert.equal(withOutcomeCheck(known, confirm), known, "a known outcome passes unchanged");
});
