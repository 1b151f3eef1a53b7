/**
 * The standard tests each tool's family test registers for it, named after the tool: its
 * daemon errors kept, and its `detail: "full"` where its definition offers it.
 */
import assert from "node:assert/strict";
import { isObject, type Json } from "../../src/shared/json.ts";
import {
  daemonErrorsKept,
  inOrder,
  type Reply,
  type ToolRig,
  toolRig,
  type ToolRigOptions,
} from "./scripted_daemon.ts";

/** Registers the test that `tool`'s daemon errors reach the caller as `daemonErrorsKept` says. */
export function pinDaemonErrors(
  tool: string,
  args: Json | ((rig: ToolRig) => Json),
  prepare: Reply[] = [],
  prepareCall?: (rig: ToolRig) => Promise<unknown>,
  options?: ToolRigOptions,
): void {
  Deno.test(`${tool}: daemon errors keep their code, message and retryable`, async () => {
    const [missing, conflict] = await daemonErrorsKept(tool, args, prepare, prepareCall, options);
    assert.equal(missing.isError, true);
    assert.equal(missing.error?.code, "portreeve_not_found");
    assert.equal(missing.error?.retryable, false);
    assert.match(missing.error!.message, /Nothing of that name is known/);
    assert.equal(conflict.isError, true);
    assert.equal(conflict.error?.code, "portreeve_conflict");
    assert.equal(conflict.error?.retryable, true);
  });
}

/**
 * Pins that `tool` offers `detail: "full"` (its definition's `detail`): asked so, its data is
 * the daemon's record whole, or for a page the daemon's records whole, in any order.
 */
export function pinDetail(tool: string, args: Json, reply: Reply): void {
  Deno.test(`${tool}: detail "full" returns the daemon's records whole`, async () => {
    await using rig = toolRig(inOrder(reply));
    const r = await rig.call(tool, { ...args, detail: "full" });
    assert.equal(r.ok, true, JSON.stringify(r.error));
    const sent = isObject(reply.body) ? reply.body.data : undefined;
    const listed = Array.isArray(sent) ? sent : isObject(sent) ? sent.items : undefined;
    if (!Array.isArray(listed)) return assert.deepEqual(r.data, sent);
    const sorted = (items: unknown) =>
      Array.isArray(items) ? items.map((item) => JSON.stringify(item)).sort() : items;
    assert.deepEqual(sorted(r.data!.items), sorted(listed));
  });
}
