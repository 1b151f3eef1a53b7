/** Memory: settle-once with replay and conflicts, and single flight per key. */
import assert from "node:assert/strict";
import { canonicalJson, heldWithOtherArguments, Memory } from "../../../src/catalogue/memory.ts";
import { BridgeError, Codes } from "../../../src/shared/errors.ts";
import { nextStepFor } from "../../../src/shared/error_codes.ts";
import { tick } from "../../support/watched.ts";

Deno.test("once: concurrent identical settles run once; a failure is shared, then retried", async () => {
  const memory = new Memory();
  let runs = 0;
  const settle = () =>
    memory.once("k", { rootPid: 7 }, async () => {
      runs++;
      await tick();
      if (runs === 1) throw new BridgeError("portreeve_unavailable", "down", true);
      return { runId: "r" };
    });
  const failed = await Promise.allSettled([settle(), settle(), settle()]);
  assert.deepEqual(failed.map((r) => r.status), ["rejected", "rejected", "rejected"]);
  assert.equal(runs, 1);
  const results = await Promise.all([settle(), settle(), settle()]);
  assert.equal(runs, 2);
  assert.deepEqual(results.map((r) => r.changed), [true, false, false]);
  assert.deepEqual((await settle()).changed, false);
  await assert.rejects(
    memory.once("k", { rootPid: 8 }, () => Promise.resolve({ runId: "x" })),
    (e: BridgeError) => e.code === Codes.conflict,
  );
  assert.equal(runs, 2);
});

Deno.test("once: a call with other arguments waits for the one in flight, then conflicts", async () => {
  const memory = new Memory();
  const first = memory.once("k", { reason: "a" }, async () => {
    await tick();
    return { at: "t" };
  });
  const other = memory.once("k", { reason: "b" }, () => Promise.resolve({ at: "u" }));
  assert.equal((await first).changed, true);
  await assert.rejects(other, (e: BridgeError) => e.code === Codes.conflict);
});

Deno.test("once: a joiner is not cancelled by another caller's cancellation", async () => {
  const memory = new Memory();
  let runs = 0;
  const run = async () => {
    runs++;
    await tick();
    if (runs === 1) throw new BridgeError(Codes.cancelled, "cancelled by the host", false);
    return { at: "t" };
  };
  const cancelled = memory.once("k", {}, run);
  const joined = memory.once("k", {}, run);
  await assert.rejects(cancelled, (e: BridgeError) => e.code === Codes.cancelled);
  assert.equal((await joined).changed, true);
  assert.equal(runs, 2);
});

Deno.test("target: identical starts share one, a replay while held, other arguments conflict", async () => {
  const memory = new Memory();
  let started = 0;
  let held = true;
  const steps = {
    held: () => held,
    replay: (record: string) => ({ changed: true, id: record }),
    async start() {
      started++;
      await tick();
      return { result: { changed: true, id: `lease-${started}` }, record: `lease-${started}` };
    },
    conflict: (record: string) => heldWithOtherArguments("lease", `lease ${record}`, {}),
  };
  const input = { claim: { b: 1, a: 2 }, allocation: { mode: "sticky" } };
  const results = await Promise.all(
    Array.from({ length: 8 }, () => memory.target("t", input, steps)),
  );
  assert.equal(started, 1);
  assert.deepEqual(results.map((r) => r.changed).filter(Boolean).length, 1);
  const reordered = { allocation: { mode: "sticky" }, claim: { a: 2, b: 1 } };
  assert.deepEqual(await memory.target("t", reordered, steps), { changed: false, id: "lease-1" });
  await assert.rejects(
    memory.target("t", { ...input, allocation: { mode: "ephemeral" } }, steps),
    (e: BridgeError) =>
      e.code === Codes.conflict && e.details.reason === "lease_held_with_other_arguments",
  );
  held = false; // settled: the next acquire starts afresh, with any arguments
  const next = await memory.target("t", { ...input, allocation: { mode: "ephemeral" } }, steps);
  assert.deepEqual(next, { changed: true, id: "lease-2" });
});

Deno.test("canonicalJson ignores key order, keeps array order", () => {
  assert.equal(canonicalJson({ b: [2, 1], a: { d: 1, c: 2 } }), '{"a":{"c":2,"d":1},"b":[2,1]}');
});

Deno.test("once: a settled key answers a repeat from the record and refuses other arguments", async () => {
  const memory = new Memory();
  let runs = 0;
  const settle = () => Promise.resolve({ settled: ++runs });
  assert.deepEqual(await memory.once("k", { rootPid: 1 }, settle), { settled: 1, changed: true });
  assert.deepEqual(await memory.once("k", { rootPid: 1 }, settle), { settled: 1, changed: false });
  await assert.rejects(
    memory.once("k", { rootPid: 2 }, settle),
    (e: BridgeError) =>
      e.code === Codes.conflict && e.details.reason === "settled_with_other_arguments",
  );
  assert.equal(runs, 1);
});

Deno.test("the memory is bounded: past its capacity the oldest entry is forgotten first", () => {
  const memory = new Memory(2);
  memory.set("a", 1);
  memory.set("b", 2);
  memory.set("a", 3); // rewriting an entry makes it the newest
  memory.set("c", 4);
  assert.equal(memory.get("b"), undefined);
  assert.equal(memory.get("a"), 3);
  assert.equal(memory.get("c"), 4);
});

Deno.test("heldWithOtherArguments: a conflict that names what is held and its own reason", () => {
  const e = heldWithOtherArguments("lease", "lease L1", { leaseId: "L1" });
  assert.equal(e.code, Codes.conflict);
  assert.equal(e.retryable, false);
  assert.match(e.message, /already holds lease L1, acquired with other arguments/);
  assert.equal(e.details.reason, "lease_held_with_other_arguments");
  assert.equal(e.details.leaseId, "L1");
  // What to do is the reason's next step, not the message's.
  assert.match(nextStepFor(e.code, e.details), /abandon it \(portreeve_lease_abandon/);
});
