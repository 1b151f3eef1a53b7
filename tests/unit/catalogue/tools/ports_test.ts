/** Ports family against a scripted daemon: what each tool asks for and what it hands back. */
import assert from "node:assert/strict";
import { comparable, inOrder, toolRig } from "../../../support/scripted_daemon.ts";
import { pinDaemonErrors, pinDetail } from "../../../support/pins.ts";
import { recorded } from "../../../support/recorded.ts";

Deno.test("ports_list: filters go to the daemon as its query; the page is cut here", async () => {
  const claimed = recorded(22);
  await using rig = toolRig(inOrder(claimed.reply));
  const r = await rig.call("portreeve_ports_list", { claimed: true });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(claimed.sent)]);
  assert.equal(r.ok, true);
  const items = r.data!.items as { port: number }[];
  assert.deepEqual(items.map((e) => e.port), claimed.data.map((e: { port: number }) => e.port));
  assert.deepEqual(r.data!.page, { itemCount: items.length }, "one page holds them all: no cursor");
});

Deno.test("ports_list: a page of one carries a cursor bound to the filters", async () => {
  const many = recorded(26);
  const port = many.data[0];
  const two = [{ ...port, port: 18080 }, { ...port, port: 18081 }];
  await using rig = toolRig(
    inOrder({ ...many.reply, body: { ...many.reply.body as object, data: two } }),
  );
  const r = await rig.call("portreeve_ports_list", { listening: true, limit: 1 });
  assert.deepEqual(rig.daemon.sent[0].payload, { listening: "true" }, "limit stays here");
  assert.deepEqual((r.data!.items as { port: number }[]).map((e) => e.port), [18080]);
  assert.equal(typeof (r.data!.page as { nextCursor?: unknown }).nextCursor, "string");
});

Deno.test("port_inspect: GET /v1/ports/{port}; the entry comes back with its claim", async () => {
  const inspect = recorded(24);
  await using rig = toolRig(inOrder(inspect.reply));
  const r = await rig.call("portreeve_port_inspect", { port: 18080 });
  assert.deepEqual(rig.daemon.sent.map(comparable), [comparable(inspect.sent)]);
  assert.equal(r.data!.port, 18080);
});

pinDaemonErrors("portreeve_ports_list", {});
pinDaemonErrors("portreeve_port_inspect", { port: 80 });
pinDetail("portreeve_ports_list", { claimed: true }, recorded(22).reply);
pinDetail("portreeve_port_inspect", { port: 18080 }, recorded(24).reply);
