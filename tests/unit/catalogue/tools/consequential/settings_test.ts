/** The settings receipt pair against a scripted daemon, and how a person reads a change. */
import assert from "node:assert/strict";
import { recorded } from "../../../../support/recorded.ts";
import { APPROVES, executed, pinReceiptPair, receiptPost as post } from "./receipt_pairs.ts";
import { inOrder, ok, toolRig } from "../../../../support/scripted_daemon.ts";
import {
  portRuns,
  settingChange,
} from "../../../../../src/catalogue/tools/consequential/settings.ts";

const settings = recorded(140);
pinReceiptPair({
  preview: {
    tool: "portreeve_settings_update_preview",
    args: { updates: { excludedPorts: [18099] } },
    reply: settings.reply,
    sent: settings.sent,
    summary: /excludedPorts/,
  },
  execute: {
    tool: "portreeve_settings_update_execute",
    args: (receiptId) => ({ receiptId }),
    reply: executed({ settings: settings.data.proposal.proposed }),
    sent: (receiptId) => post("/v1/actions/settings/execute", { receiptId }),
    result: /"excludedPorts":\[18099\]/,
  },
});

Deno.test("settings: a port list reads as the ports added and removed, every one named", () => {
  assert.equal(portRuns([5, 3, 4, 9, 3]), "3–5, 9");
  const change = settingChange("excludedPorts", [1, 2, 3, 10], [2, 3, 4, 5, 6]);
  assert.equal(change?.plain(), "excludedPorts: add 4–6, remove 1, 10");
  assert.equal(change?.forPerson(), '"excludedPorts": add "4–6", remove "1, 10"');
  // Two different lists never read the same, however long.
  const a = settingChange("excludedPorts", [], Array.from({ length: 300 }, (_, i) => 2 * i));
  const b = settingChange("excludedPorts", [], Array.from({ length: 300 }, (_, i) => 2 * i + 1));
  assert.notEqual(a?.forPerson(), b?.forPerson());
});

Deno.test("settings: a value that stays the same is no change", () => {
  assert.equal(settingChange("excludedPorts", [3, 1], [1, 3]), undefined);
  assert.equal(settingChange("leaseTtlMilliseconds", 15000, 15000), undefined);
  assert.equal(
    settingChange("leaseTtlMilliseconds", 15000, 20000)?.plain(),
    "leaseTtlMilliseconds 15000 → 20000",
  );
});

Deno.test("settings: an update that changes nothing carries no approval request and is never asked", async () => {
  const current = settings.data.observed.current;
  const reply = ok({
    ...settings.data,
    proposal: { updates: { excludedPorts: [] }, proposed: current },
  });
  await using rig = toolRig(inOrder(reply), { host: APPROVES });
  const preview = await rig.call("portreeve_settings_update_preview", {
    updates: { excludedPorts: [] },
  });
  assert.equal(preview.data!.approval ?? null, null);
  assert.match(String(preview.data?.summary), /^Leave every setting as it is\./);
  const r = await rig.call("portreeve_settings_update_execute", {
    receiptId: preview.data!.receiptId,
  });
  assert.equal(r.error?.code, "portreeve_conflict");
  assert.equal(r.error?.details.reason, "nothing_to_do");
  assert.equal(rig.daemon.sent.length, 1, "only the preview was sent");
});
