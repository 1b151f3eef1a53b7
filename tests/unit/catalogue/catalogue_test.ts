/**
 * The guards every tool call passes through in src/catalogue/catalogue.ts, each held by a test
 * of its own (the real catalogue, custody on a fake clock and a scripted daemon; no process):
 * - a tool reaches only the routes its definition declares (`declaredRoutesOnly`);
 * - token removal, first layer: credential-named fields are stripped from results and error
 *   details, whatever their value (one this bridge never held included);
 * - token removal, second layer: every fragment of a credential custody holds is masked in
 *   whatever a result or an error shows, under any field name.
 * The third layer, the stdout scrubber, is held by tests/unit/bridge/stdio_test.ts.
 */
import assert from "node:assert/strict";
import { Catalogue } from "../../../src/catalogue/catalogue.ts";
import { portsList } from "../../../src/catalogue/tools/ports.ts";
import { settingsGet } from "../../../src/catalogue/tools/settings.ts";
import { daemonError, inOrder, ok, type Reply, toolRig } from "../../support/scripted_daemon.ts";
import { recorded, RECORDED_ACQUIRE } from "../../support/recorded.ts";
import type { CallToolResult } from "@modelcontextprotocol/server";

/** Everything a host would see of a result: its text and its structured content. */
function shown(result: unknown): string {
  return JSON.stringify(result);
}

Deno.test("declared routes only: a request to a route the tool's definition omits is never sent", async () => {
  const config = recorded(6);
  await using rig = toolRig(inOrder(config.reply, config.reply));
  const bugs: string[] = [];
  // The real ports_list, with its declared routes taken away.
  const catalogue = new Catalogue(
    "full",
    undefined,
    () => Promise.resolve([{ ...portsList, routes: [] }]),
  );
  catalogue.onBug = (tool, error) => bugs.push(`${tool}: ${String(error)}`);
  const result = await catalogue.call("portreeve_ports_list", {}, rig.ctx) as CallToolResult;
  assert.equal(result.isError, true);
  assert.match(shown(result), /portreeve_internal/);
  assert.deepEqual(rig.daemon.sent, [], "nothing reached the daemon");
  assert.equal(bugs.length, 1);
  assert.match(
    bugs[0],
    /^portreeve_ports_list: Error: portreeve_ports_list requested GET \/v1\/ports/,
  );
  assert.match(bugs[0], /which its definition omits/);
  // Its declared routes restored, the same call is sent.
  const whole = new Catalogue("full", undefined, () => Promise.resolve([settingsGet]));
  const answered = await whole.call("portreeve_settings_get", {}, rig.ctx) as CallToolResult;
  assert.notEqual(answered.isError, true, shown(answered));
  assert.equal(rig.daemon.sent.length, 1);
});

/** Secrets this bridge never held: only the field stripping can take them out. */
const UNSEEN = ["tok_unseen_0123456789abcdef", "cred_unseen_0123456789abcdef"];

function settingsWith(extra: Record<string, unknown>): Reply {
  const config = recorded(6);
  return ok({ ...config.data, ...extra });
}

Deno.test("token removal, field stripping: credential-named fields never reach a result or an error", async () => {
  const leaky = {
    leaseToken: UNSEEN[0],
    nested: { credential: UNSEEN[1], items: [{ token: UNSEEN[0], kept: "yes" }] },
  };
  await using rig = toolRig(inOrder(
    settingsWith(leaky),
    daemonError(409, "conflict", "It changed.", {
      details: { leaseToken: UNSEEN[0], operationCredential: UNSEEN[1], reason: "stale" },
    }),
  ));
  // Custody holds nothing here, so the masking layer has nothing to mask with.
  const full = await rig.call("portreeve_settings_get", {});
  const failed = await rig.call("portreeve_settings_get", {});
  assert.equal(full.ok, true, shown(full));
  assert.equal((full.data!.nested as { items: { kept: string }[] }).items[0].kept, "yes");
  assert.equal(failed.ok, false);
  assert.equal((failed.error!.details as { reason?: string }).reason, "stale");
  for (const result of [full, failed]) {
    for (const secret of UNSEEN) assert.ok(!shown(result).includes(secret), shown(result));
    assert.doesNotMatch(shown(result), /"(leaseToken|credential|token|operationCredential)"/);
  }
});

Deno.test("token removal, value masking: a held credential is masked under any name, in results and errors", async () => {
  const acquire = recorded(10);
  const token = acquire.data.leaseToken as string;
  const quoted = `the daemon says ${token} is fine; also ${token.slice(5, 25)}`;
  await using rig = toolRig(inOrder(
    acquire.reply,
    settingsWith({ note: quoted, list: [quoted] }),
    daemonError(409, "conflict", `Lease ${token} conflicts.`, { details: { seen: quoted } }),
  ));
  const leased = await rig.call("portreeve_lease_acquire", RECORDED_ACQUIRE);
  assert.equal(leased.ok, true, shown(leased));
  const read = await rig.call("portreeve_settings_get", {});
  const failed = await rig.call("portreeve_settings_get", {});
  assert.equal(read.ok, true, shown(read));
  assert.match(String(read.data!.note), /^the daemon says .+ is fine/, "the rest stays readable");
  assert.equal(failed.ok, false);
  for (const result of [read, failed]) {
    const text = shown(result);
    // Every 12-character window of the secret is gone.
    for (let i = 0; i + 12 <= token.length; i++) {
      assert.ok(!text.includes(token.slice(i, i + 12)), `window ${i} of the token in ${text}`);
    }
  }
});
