/** History family against a scripted daemon: the daemon pages, the bridge binds its cursors. */
import assert from "node:assert/strict";
import { comparable, inOrder, toolRig } from "../../../support/scripted_daemon.ts";
import { pinDaemonErrors, pinDetail } from "../../../support/pins.ts";
import { recorded } from "../../../support/recorded.ts";

Deno.test("history_list: limit and filters go to the daemon; its cursor comes back bound", async () => {
  const first = recorded("historyFirstPage");
  const second = recorded("historyNextPage");
  await using rig = toolRig(inOrder(first.reply, second.reply));
  const r = await rig.call("portreeve_history_list", { limit: 2, entityType: "claim" });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(first.sent)]);
  assert.equal((r.data!.items as unknown[]).length, 2);
  const cursor = (r.data!.page as { nextCursor: string }).nextCursor;
  assert.notEqual(cursor, first.data.page.nextCursor, "the bridge's cursor, not the daemon's");
  await rig.call("portreeve_history_list", {
    limit: 2,
    entityType: "claim",
    afterCursor: cursor,
  });
  assert.deepEqual(rig.daemon.sent[1].payload, second.sent.payload, "the daemon's cursor again");
});

Deno.test("history_list: a cursor from other filters is refused before the daemon is asked", async () => {
  const first = recorded("historyFirstPage");
  await using rig = toolRig(inOrder(first.reply));
  const r = await rig.call("portreeve_history_list", { limit: 2, entityType: "claim" });
  const cursor = (r.data!.page as { nextCursor: string }).nextCursor;
  const reused = await rig.call("portreeve_history_list", { limit: 2, afterCursor: cursor });
  assert.equal(reused.error?.code, "portreeve_invalid_input");
  assert.equal(rig.daemon.sent.length, 1);
});

Deno.test("history_list: the daemon's recorded refusal of a cursor stays invalid_input", async () => {
  const refused = recorded("historyBadCursor");
  await using rig = toolRig(inOrder(refused.reply));
  const r = await rig.call("portreeve_history_list", { limit: 5 });
  assert.equal(r.error?.code, "portreeve_invalid_input");
  assert.match(r.error!.message, /continuation cursor is invalid/);
});

pinDaemonErrors("portreeve_history_list", {});
pinDetail(
  "portreeve_history_list",
  { limit: 2, entityType: "claim" },
  recorded("historyFirstPage").reply,
);
