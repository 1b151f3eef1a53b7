/** The settings receipt pair against a scripted daemon, and how a person reads a change. */
import assert from "node:assert/strict";
import { recorded } from "../../../../support/recorded.ts";
import { APPROVES, executed, pinReceiptPair, receiptPost as post } from "./receipt_pairs.ts";
import { inOrder, ok, toolRig } from "../../../../support/scripted_daemon.ts";
import { settingChange } from "../../../../../src/catalogue/tools/consequential/settings.ts";
import { type Line, portRuns, question } from "../../../../../src/catalogue/question.ts";
import { questionLines } from "../../../../support/question_reader.ts";

/** The lines of one setting's change as the person reads them. */
function asked(lines: readonly Line[] | undefined): string[] {
  const asked = question({
    lead: [],
    sections: [{ name: { one: "the setting" }, lines: lines! }],
    close: [],
  });
  assert.ok(asked.ok);
  return questionLines(asked.parts[0]).slice(2);
}

const settings = recorded("settingsPreview");
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
  assert.deepEqual(portRuns([5, 3, 4, 9, 3]).runs, ["3–5", "9"]);
  const change = settingChange("excludedPorts", [1, 2, 3, 10], [2, 3, 4, 5, 6]);
  assert.equal(change?.agent.plain(), "excludedPorts: add 4–6, remove 1, 10");
  assert.deepEqual(asked(change?.lines), [
    "name: excludedPorts",
    "ports added: 4–6",
    "ports removed: 1, 10",
  ]);
  // Two different lists never read the same, however long.
  const a = settingChange("excludedPorts", [], Array.from({ length: 300 }, (_, i) => 2 * i));
  const b = settingChange("excludedPorts", [], Array.from({ length: 300 }, (_, i) => 2 * i + 1));
  assert.notDeepEqual(asked(a?.lines), asked(b?.lines));
});

Deno.test("settings: a value that stays the same is no change", () => {
  assert.equal(settingChange("excludedPorts", [3, 1], [1, 3]), undefined);
  assert.equal(settingChange("leaseTtlMilliseconds", 15000, 15000), undefined);
  const change = settingChange("leaseTtlMilliseconds", 15000, 20000);
  assert.equal(change?.agent.plain(), "leaseTtlMilliseconds 15000 → 20000");
  assert.deepEqual(asked(change?.lines), [
    "name: leaseTtlMilliseconds",
    "from: 15000",
    "to: 20000",
  ]);
  // A number and the string of its digits never read the same; an unset value is said so.
  assert.deepEqual(asked(settingChange("leaseTtlMilliseconds", "15000", 15000)?.lines), [
    "name: leaseTtlMilliseconds",
    'from: "15000"',
    "to: 15000",
  ]);
  assert.deepEqual(asked(settingChange("leaseTtlMilliseconds", undefined, 1)?.lines), [
    "name: leaseTtlMilliseconds",
    "from (not set)",
    "to: 1",
  ]);
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
