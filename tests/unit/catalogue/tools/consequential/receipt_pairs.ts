/**
 * The shared test of a preview/execute pair against a scripted daemon: the preview sends its
 * body and returns the daemon's receipt with a human summary; the execute sends the receipt
 * (and what it binds to) to its route and returns the daemon's outcome as its `result`; both
 * keep daemon errors.
 */
import assert from "node:assert/strict";
import {
  comparable,
  inOrder,
  ok,
  type Reply,
  type Sent,
  toolRig,
} from "../../../../support/scripted_daemon.ts";
import { pinDaemonErrors } from "../../../../support/pins.ts";
import type { Json } from "../../../../../src/shared/json.ts";
import type { Exchange } from "../../../../support/recorded.ts";

export interface ReceiptPair {
  preview: { tool: string; args: Json; reply: Reply; sent: Sent; summary: RegExp };
  execute: {
    tool: string;
    args: (receiptId: string) => Json;
    /** The daemon's `result` (or a whole recorded reply). */
    reply: Reply;
    sent: (receiptId: string) => Sent;
    /** What the execute's `result` (as JSON) says. */
    result: RegExp;
  };
}

/** A receipt route's POST as a tool sends it: every receipt tool declares the same capability. */
export function receiptPost(path: string, payload: Json): Sent {
  return { method: "POST", path, payload, capabilities: ["mcp-foundations-v1"] };
}

/** An execute reply as the daemon words it. */
export function executed(result: Json, changed = true): Reply {
  return ok({ changed, replayed: false, result });
}

export function pinReceiptPair(pair: ReceiptPair): void {
  const previewTool = pair.preview.tool;
  const executeTool = pair.execute.tool;

  Deno.test(`${previewTool} → ${executeTool}: routes, bodies, receipt and outcome`, async () => {
    await using rig = toolRig(inOrder(pair.preview.reply, pair.execute.reply));
    const preview = await rig.call(previewTool, pair.preview.args);
    assert.equal(preview.isError, false, preview.text);
    assert.match(String(preview.data!.summary), pair.preview.summary);
    const receiptId = preview.data!.receiptId as string;
    const execute = await rig.call(executeTool, pair.execute.args(receiptId));
    assert.equal(execute.isError, false, execute.text);
    assert.deepEqual(Object.keys(execute.data!), ["changed", "replayed", "result"]);
    assert.match(JSON.stringify(execute.data!.result), pair.execute.result);
    assert.deepEqual(
      rig.daemon.sent.map(comparable),
      [pair.preview.sent, pair.execute.sent(receiptId)].map(comparable),
    );
  });

  pinDaemonErrors(previewTool, pair.preview.args);
  pinDaemonErrors(executeTool, pair.execute.args("8c6f1a2b-1111-4222-8333-444455556666"));
}

/**
 * A prune pair: the preview as recorded (nothing to prune), then an execute that deletes
 * nothing; the claims and stacks pairs differ only in their names, noun and ids field. Tool
 * names stay whole at the call site, where the recipe test looks for them.
 */
export function pinPrunePair(spec: {
  preview: string;
  execute: string;
  noun: "claim" | "stack";
  deletedIds: string;
  recorded: Pick<Exchange, "reply" | "sent">;
  summary: RegExp;
}): void {
  pinReceiptPair({
    preview: {
      tool: spec.preview,
      args: { olderThanMilliseconds: 0 },
      reply: spec.recorded.reply,
      sent: spec.recorded.sent,
      summary: spec.summary,
    },
    execute: {
      tool: spec.execute,
      args: (receiptId) => ({ receiptId }),
      reply: executed({ [spec.deletedIds]: [], skipped: [] }, false),
      sent: (receiptId) => receiptPost(`/v1/actions/${spec.noun}s/prune/execute`, { receiptId }),
      // Nothing deleted, nothing skipped: both lists empty, so left out.
      result: /^\{\}$/,
    },
  });
}
