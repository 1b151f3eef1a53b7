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
import { isObject, type Json } from "../../../../../src/shared/json.ts";
import { APPROVING_HOST } from "../../../../support/person.ts";
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

/** The person at a host that can ask, who approves every question (the default mode). */
export const APPROVES = APPROVING_HOST;

/** The receipt id in a daemon preview reply. */
function receiptOf(reply: Reply): string {
  const data = isObject(reply.body) && isObject(reply.body.data) ? reply.body.data : {};
  return String(data.receiptId);
}

export function pinReceiptPair(pair: ReceiptPair): void {
  const previewTool = pair.preview.tool;
  const executeTool = pair.execute.tool;

  Deno.test(`${previewTool} → ${executeTool}: routes, bodies, receipt and outcome`, async () => {
    await using rig = toolRig(inOrder(pair.preview.reply, pair.execute.reply), { host: APPROVES });
    const preview = await rig.call(previewTool, pair.preview.args);
    assert.equal(preview.isError, false, preview.text);
    assert.match(String(preview.data!.summary), pair.preview.summary);
    assert.equal(preview.data!.approval, "host_asks_user");
    const receiptId = preview.data!.receiptId as string;
    const execute = await rig.call(executeTool, pair.execute.args(receiptId));
    assert.equal(execute.isError, false, execute.text);
    // The daemon's answer as sent, and the words on what its compact form leaves out, if any.
    const { notShown: _words, ...answer } = execute.data!;
    assert.deepEqual(Object.keys(answer), ["changed", "replayed", "result"]);
    assert.match(JSON.stringify(execute.data!.result), pair.execute.result);
    assert.deepEqual(
      rig.daemon.sent.map(comparable),
      [pair.preview.sent, pair.execute.sent(receiptId)].map(comparable),
    );
  });

  pinDaemonErrors(previewTool, pair.preview.args);
  // The execute's own errors, once its receipt was issued here and the person said yes.
  pinDaemonErrors(
    executeTool,
    pair.execute.args(receiptOf(pair.preview.reply)),
    [pair.preview.reply],
    (rig) => rig.call(previewTool, pair.preview.args),
    { host: APPROVES },
  );
}

/**
 * A prune pair: the preview as recorded (nothing to prune), whose execute is refused unasked
 * and sends nothing; then, with `candidate` to prune, the execute the person approved. The
 * claims and stacks pairs differ only in their names, noun, ids field and candidate. Tool
 * names stay whole at the call site, where the recipe test looks for them.
 */
export function pinPrunePair(spec: {
  preview: string;
  execute: string;
  noun: "claim" | "stack";
  deletedIds: string;
  recorded: Pick<Exchange, "reply" | "sent">;
  /** One candidate as the daemon lists it in `observed.candidates`. */
  candidate: Json;
  summary: RegExp;
}): void {
  Deno.test(`${spec.preview}: nothing to prune carries no approval request; its execute sends nothing`, async () => {
    await using rig = toolRig(inOrder(spec.recorded.reply), { host: APPROVES });
    const preview = await rig.call(spec.preview, { olderThanMilliseconds: 0 });
    assert.equal(preview.ok, true, JSON.stringify(preview.error));
    assert.equal(preview.data!.approval ?? null, null);
    assert.equal(preview.data!.nextStep ?? null, null, "nothing to do: no next step");
    const receiptId = preview.data!.receiptId as string;
    const execute = await rig.call(spec.execute, { receiptId });
    assert.equal(execute.error?.code, "portreeve_conflict");
    assert.equal(execute.error?.details.reason, "nothing_to_do");
    assert.equal(rig.daemon.sent.length, 1, "only the preview reached the daemon");
  });

  const reply = structuredClone(spec.recorded.reply);
  const data = (reply.body as { data: { observed: { candidates: Json[] } } }).data;
  data.observed.candidates = [spec.candidate];
  pinReceiptPair({
    preview: {
      tool: spec.preview,
      args: { olderThanMilliseconds: 0 },
      reply,
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
