/** deeperThan measures nesting without recursion, so no input can overflow the stack. */
import assert from "node:assert/strict";
import { deeperThan } from "../../../src/shared/depth.ts";

Deno.test("deeperThan: the path to the first value past the limit, or null", () => {
  assert.equal(deeperThan({ a: { b: [1, { c: 2 }] } }, 4), null);
  assert.deepEqual(deeperThan({ a: { b: [1, { c: {} }] } }, 4), ["a", "b", 1, "c"]);
  assert.equal(deeperThan("text", 0), null);
  assert.deepEqual(deeperThan({}, 0), []);
});

Deno.test("deeperThan: 100,000 levels are measured without a stack overflow", () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const path = deeperThan({ definition: deep }, 64);
  assert.equal(path?.length, 64);
  assert.equal(path?.[0], "definition");
});
