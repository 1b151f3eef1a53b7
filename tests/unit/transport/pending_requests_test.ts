/**
 * The bounds on pending requests: tool calls by count and by frame bytes (one call alone
 * always passes), other requests by count; an answer or a cancel frees room and wakes a
 * waiting reader; a reused id does not count twice.
 */
import assert from "node:assert/strict";
import { PendingRequests } from "../../../src/transport/pending_requests.ts";

const limits = { maxCalls: 3, maxCallBytes: 100, maxOthers: 2 };

Deno.test("tool calls are bounded by count and by bytes; one call alone always passes", () => {
  const pending = new PendingRequests(limits);
  assert.equal(pending.admits("tools/call", 500), true, "alone, whatever its size");
  pending.add(1, "tools/call", 60);
  assert.equal(pending.admits("tools/call", 41), false, "101 bytes");
  assert.equal(pending.admits("tools/call", 40), true, "100 bytes");
  pending.add(2, "tools/call", 20);
  pending.add(3, "tools/call", 20);
  assert.equal(pending.admits("tools/call", 0), false, "three calls");
  assert.deepEqual(pending.calls, { count: 3, bytes: 100 });
  assert.equal(pending.admits("ping", 10), true, "other requests have their own bound");
});

Deno.test("other requests are bounded by count", () => {
  const pending = new PendingRequests(limits);
  pending.add("a", "ping", 10);
  pending.add("b", "tools/list", 10);
  assert.equal(pending.admits("ping", 10), false);
  assert.equal(pending.admits("tools/call", 10), true);
  assert.equal(pending.remove("a"), true);
  assert.equal(pending.admits("ping", 10), true);
});

Deno.test("an answer wakes a waiting reader; unknown and reused ids are harmless", async () => {
  const pending = new PendingRequests(limits);
  pending.add(7, "tools/call", 50);
  pending.add(7, "tools/call", 50);
  assert.deepEqual(pending.calls, { count: 1, bytes: 50 }, "a reused id replaces itself");
  let woken = false;
  pending.changed().then(() => woken = true);
  assert.equal(pending.remove(8), false);
  await Promise.resolve();
  assert.equal(woken, false, "an unknown id changes nothing");
  assert.equal(pending.remove(7), true);
  await Promise.resolve();
  assert.equal(woken, true);
  assert.equal(pending.size, 0);
});
