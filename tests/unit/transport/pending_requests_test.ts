/**
 * The bounds on pending requests: by count per kind (tool calls, others) and, together, by the
 * parse cost of their frames, which small frames do not count against; one request alone always
 * passes; an answer or a cancel frees room and wakes a waiting reader; a reused id does not count
 * twice.
 */
import assert from "node:assert/strict";
import { PendingRequests } from "../../../src/transport/pending_requests.ts";

const limits = { maxCalls: 3, maxOthers: 2, maxCost: 100, smallCost: 5 };

Deno.test("requests are bounded by their frames' parse cost together; one alone always passes", () => {
  const pending = new PendingRequests(limits);
  assert.equal(pending.admits("tools/call", 500), true, "alone, whatever its cost");
  pending.add(1, "tools/call", 60);
  assert.equal(pending.admits("tools/call", 41), false, "a cost of 101");
  assert.equal(pending.admits("ping", 41), false, "other requests count against the same cost");
  assert.equal(pending.admits("tools/call", 40), true, "a cost of 100");
  pending.add(2, "tools/call", 20);
  pending.add(3, "ping", 20);
  assert.deepEqual(pending.calls, { count: 2, cost: 100 });
  assert.equal(pending.admits("tools/call", 5), true, "a small frame counts only by number");
  assert.equal(pending.admits("tools/call", 6), false);
});

Deno.test("tool calls and other requests are each bounded by count", () => {
  const pending = new PendingRequests(limits);
  for (const id of [1, 2, 3]) pending.add(id, "tools/call", 1);
  assert.equal(pending.admits("tools/call", 1), false, "three calls");
  assert.equal(pending.admits("ping", 1), true, "other requests have their own count");
  pending.add("a", "ping", 1);
  pending.add("b", "tools/list", 1);
  assert.equal(pending.admits("ping", 1), false);
  assert.equal(pending.remove("a"), true);
  assert.equal(pending.admits("ping", 1), true);
});

Deno.test("an answer wakes a waiting reader; unknown and reused ids are harmless", async () => {
  const pending = new PendingRequests(limits);
  pending.add(7, "tools/call", 50);
  pending.add(7, "tools/call", 50);
  assert.deepEqual(pending.calls, { count: 1, cost: 50 }, "a reused id replaces itself");
  let woken = false;
  pending.changed().then(() => woken = true);
  assert.equal(pending.remove(8), false);
  await Promise.resolve();
  assert.equal(woken, false, "an unknown id changes nothing");
  assert.equal(pending.remove(7), true);
  await Promise.resolve();
  assert.equal(woken, true);
  assert.equal(pending.size, 0);
  assert.deepEqual(pending.calls, { count: 0, cost: 0 });
});
