/** Receipt tools on stacks and settings (apply, prune, settings update) against a scripted daemon. */
import { recorded } from "../../../../support/recorded.ts";
import { executed, pinPrunePair, pinReceiptPair, receiptPost as post } from "./receipt_pairs.ts";

const apply = recorded("stackApplyPreview");
const applied = recorded("stackApplyExecute");
pinReceiptPair({
  preview: {
    tool: "portreeve_stack_apply_preview",
    args: apply.sent.payload,
    reply: apply.reply,
    sent: apply.sent,
    summary: /portreeve\.stack\.json/,
  },
  execute: {
    tool: "portreeve_stack_apply_execute",
    args: (receiptId) => ({ receiptId, stackRoot: "/home/dev/work/demo-stack" }),
    reply: applied.reply,
    sent: () => applied.sent,
    summary: /^Wrote \/home\/dev\/work\/demo-stack\/portreeve\.stack\.json/,
  },
});

pinPrunePair({
  preview: "portreeve_stacks_prune_preview",
  execute: "portreeve_stacks_prune_execute",
  noun: "stack",
  deletedIds: "deletedStackIds",
  recorded: recorded("stacksPrunePreview"),
  summary: /stack/,
});

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
    summary: /^Settings updated\.$/,
  },
});
