/**
 * Every state-changing route a tool declares names the read that settles a lost answer; the
 * POSTs that only read (re-sent safely) need none.
 */
import assert from "node:assert/strict";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { outcomeCheck, withOutcomeCheck } from "../../../src/catalogue/outcome_checks.ts";
import { BridgeError } from "../../../src/shared/errors.ts";
import { nextStepFor } from "../../../src/shared/error_codes.ts";

/** POSTs that change nothing: status, resolve, snapshot and validation. */
const READ_ONLY_POSTS = [
  "POST /v1/stacks/{stackId}/status",
  "POST /v1/stack-activations/{activationId}/resolve",
  "POST /v1/stack-activations/{activationId}/snapshot",
  "POST /v1/actions/stack-definition/validate",
];

const routes = [
  ...new Map(ALL_TOOLS.flatMap((t) => t.routes ?? []).map((r) => [r.route, r])).values(),
];

Deno.test("every declared state-changing POST has an outcome check", () => {
  const unchecked = routes.filter((r) => r.method === "POST" && !outcomeCheck(r))
    .map((r) => r.route).sort();
  assert.deepEqual(unchecked, [...READ_ONLY_POSTS].sort());
});

Deno.test("an unknown outcome gains the check in its details, and so in its next step", () => {
  const confirm = routes.find((r) => r.route === "POST /v1/leases/{leaseId}/confirm")!;
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
