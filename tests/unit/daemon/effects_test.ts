/**
 * What a route's declared effect makes of a concrete request (src/daemon/effects.ts): a value
 * rule decides by one body field, its absence is the declared default, and a value it does not
 * list counts as the worst it does; the client's gate refuses a consequential one unproven.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import {
  consequential,
  coordinates,
  dependsOn,
  effectOf,
  possibleEffects,
} from "../../../src/daemon/effects.ts";
import { ApprovalGate, GateRefusal } from "../../../src/daemon/gate.ts";
import { post } from "../../../src/daemon/routes.ts";

Deno.test("effects: a value rule decides by the body; absent is the default, unknown the worst", () => {
  const signals = consequential(["signals a process"], "reclaims first");
  const kills = consequential(["signals a process", "deletes records"], "kills and deletes");
  const rule = dependsOn("allocation.policy", "never", {
    never: coordinates("leases"),
    graceful: signals,
    brutal: kills,
  });
  assert.equal(effectOf(rule, {}).level, "coordinate");
  assert.equal(effectOf(rule, { allocation: {} }).level, "coordinate");
  assert.equal(effectOf(rule, { allocation: { policy: "graceful" } }), signals);
  for (const odd of ["NEVER", 0, null, ["never"], { never: true }]) {
    const effect = effectOf(rule, { allocation: { policy: odd } });
    assert.equal(effect.level, "consequential", JSON.stringify(odd));
    assert.deepEqual(
      effect.level === "consequential" && [...effect.consequences].sort(),
      ["deletes records", "signals a process"],
    );
  }
  assert.equal(possibleEffects(rule).length, 3);
  assert.throws(() => dependsOn("x", "missing", { a: signals }), /absent value missing/);
  // The client's own check, without a daemon: a consequential value with no proof.
  const route = post("/v1/test", z.looseObject({}), rule);
  const gate = new ApprovalGate();
  assert.equal(
    gate.admit(route, "/v1/test", { allocation: { policy: "never" } }).level,
    "coordinate",
  );
  assert.throws(
    () => gate.admit(route, "/v1/test", { allocation: { policy: "brutal" } }),
    GateRefusal,
  );
});
