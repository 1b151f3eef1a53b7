/**
 * The approval gate without a process: which declared capabilities count as "can ask", what the
 * receipt book remembers, and that only a ticked box approves. The end-to-end suite drives the
 * same code through real hosts' protocol eras (tests/e2e/approval_test.ts).
 */
import assert from "node:assert/strict";
import { asksForms } from "../../../src/transport/server.ts";
import { ReceiptBook } from "../../../src/catalogue/receipt_book.ts";
import { type ApprovalContext, obtainApproval } from "../../../src/catalogue/approval.ts";
import { AnswerNeeded, HostAskError } from "../../../src/shared/host_channel.ts";
import { BridgeError } from "../../../src/shared/errors.ts";
import { post } from "../../../src/daemon/routes.ts";
import { consequential } from "../../../src/daemon/effects.ts";
import { z } from "zod";

/** A consequential route for the proofs these tests ask for. */
const DELETE = post(
  "/v1/actions/claims/{claimId}/delete/execute",
  z.looseObject({}),
  consequential(["deletes records"], "deletes a claim"),
);
const request = (receiptId: string) => ({
  route: DELETE,
  path: "/v1/actions/claims/c1/delete/execute",
  body: { receiptId },
});
/** The execute most of these tests ask about: claim c1's delete, on receipt r1. */
const DELETE_CALL = {
  tool: "portreeve_claim_delete_execute",
  action: "claim.delete",
  target: { type: "claim", id: "c1" },
  receiptId: "r1",
  request: request("r1"),
};

Deno.test("asksForms: form elicitation, bare or explicit; URL-only and absent do not count", () => {
  assert.equal(asksForms({ elicitation: {} }), true);
  assert.equal(asksForms({ elicitation: { form: {} } }), true);
  assert.equal(asksForms({ elicitation: { form: {}, url: {} } }), true);
  assert.equal(asksForms({ elicitation: { url: {} } }), false);
  assert.equal(asksForms({ sampling: {} }), false);
  assert.equal(asksForms({ elicitation: true }), false);
  assert.equal(asksForms(undefined), false);
});

Deno.test("receipt book: an answer survives a repeated preview; the oldest receipts go first", () => {
  const book = new ReceiptBook(2);
  const receipt = (id: string) => ({
    receiptId: id,
    action: "claim.delete",
    target: { type: "claim", id },
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
    question: `delete ${id}`,
  });
  book.remember(receipt("a"));
  book.decide("a", "declined");
  book.decide("a", "approved");
  assert.equal(book.get("a")?.decision, "declined", "the first answer stands");
  book.remember(receipt("a"));
  assert.equal(book.get("a")?.decision, "declined");
  book.remember(receipt("b"));
  book.remember(receipt("c"));
  assert.equal(book.get("a"), undefined);
  const state = book.openQuestion("b", Date.now() + 1000);
  assert.equal(book.takeQuestion(state)?.receiptId, "b");
  assert.equal(book.takeQuestion(state), undefined, "an answer counts once");
});

/** A receipt book holding one receipt that expires in a minute. */
function bookWith(
  receiptId: string,
  action: string,
  target: { type: string; id: string },
  question: string,
): ReceiptBook {
  const receipts = new ReceiptBook();
  const expiresAt = new Date(Date.now() + 60_000).toISOString();
  receipts.remember({ receiptId, action, target, expiresAt, question });
  return receipts;
}

function gate(answer: () => Promise<unknown>) {
  const receipts = bookWith(
    "r1",
    "claim.delete",
    { type: "claim", id: "c1" },
    "Delete claim web api.http?",
  );
  let asked = 0;
  const ctx: ApprovalContext = {
    bridge: { approval: "auto", approvalMs: 5_000 },
    receipts,
    signal: new AbortController().signal,
    host: {
      canAsk: true,
      ask: () => {
        asked++;
        return answer();
      },
    },
  };
  const run = () => obtainApproval(ctx, DELETE_CALL);
  return { run, asked: () => asked, receipts };
}

async function code(promise: Promise<unknown>): Promise<string | null> {
  try {
    await promise;
    return null;
  } catch (error) {
    if (error instanceof BridgeError) return error.code;
    throw error;
  }
}

Deno.test("gate: only an accepted, ticked box approves; the answer is asked for once", async () => {
  const yes = gate(() => Promise.resolve({ action: "accept", content: { approve: true } }));
  assert.equal(await code(yes.run()), null);
  assert.equal(await code(yes.run()), null);
  assert.equal(yes.asked(), 1);

  for (
    const answer of [
      { action: "accept", content: { approve: false } },
      { action: "accept", content: { approve: "true" } },
      { action: "accept" },
      { action: "decline" },
      { action: "cancel" },
    ]
  ) {
    const no = gate(() => Promise.resolve(answer));
    assert.equal(await code(no.run()), "portreeve_approval_declined", JSON.stringify(answer));
    assert.equal(await code(no.run()), "portreeve_approval_declined");
    assert.equal(no.asked(), 1);
  }
});

Deno.test("gate: a timeout or a broken host leaves the receipt unanswered", async () => {
  let calls = 0;
  const flaky = gate(() =>
    ++calls === 1
      ? Promise.reject(new HostAskError(true, "timed out"))
      : Promise.resolve({ action: "decline" })
  );
  assert.equal(await code(flaky.run()), "portreeve_approval_unavailable");
  assert.equal(flaky.receipts.get("r1")?.decision, undefined);
  assert.equal(await code(flaky.run()), "portreeve_approval_declined");
  const odd = gate(() => Promise.resolve({ action: "maybe" }));
  assert.equal(await code(odd.run()), "portreeve_approval_unavailable");
});

Deno.test("gate: on the 2026-07-28 path the question is returned, and the retry's answer counts", async () => {
  const receipts = bookWith(
    "r2",
    "settings.update",
    { type: "settings", id: "global" },
    "Change leaseTtlMilliseconds 15000 → 20000.",
  );
  const call = {
    tool: "portreeve_settings_update_execute",
    action: "settings.update",
    target: { type: "settings", id: "global" },
    receiptId: "r2",
    request: request("r2"),
  };
  const base = { bridge: { approval: "required" as const, approvalMs: 5_000 }, receipts };
  const signal = new AbortController().signal;
  const first = await obtainApproval({ ...base, signal, host: { canAsk: true } }, call)
    .then(() => null, (error) => error);
  assert.ok(first instanceof AnswerNeeded);
  const round = first.result();
  assert.equal(round.resultType, "input_required");
  assert.equal(
    round.inputRequests.approval.params.message,
    "Change leaseTtlMilliseconds 15000 → 20000.",
  );

  // A forged state is not an answer: the person is asked again.
  const forged = await obtainApproval({
    ...base,
    signal,
    host: {
      canAsk: true,
      retried: {
        state: crypto.randomUUID(),
        responses: { approval: { action: "accept", content: { approve: true } } },
      },
    },
  }, call).then(() => null, (error) => error);
  assert.ok(forged instanceof AnswerNeeded);

  await obtainApproval({
    ...base,
    signal,
    host: {
      canAsk: true,
      retried: {
        state: round.requestState,
        responses: { approval: { action: "accept", content: { approve: true } } },
      },
    },
  }, call);
  assert.equal(receipts.get("r2")?.decision, "approved");
});

Deno.test("gate: the host must answer by the approval deadline, or the receipt's expiry if sooner", async () => {
  const waits: number[] = [];
  const ask = (receipts: ReceiptBook, approvalMs: number) =>
    obtainApproval({
      bridge: { approval: "auto", approvalMs },
      receipts,
      signal: new AbortController().signal,
      host: {
        canAsk: true,
        ask: (_form, { timeoutMs }) => {
          waits.push(timeoutMs);
          return Promise.reject(new HostAskError(true, "timed out"));
        },
      },
    }, DELETE_CALL);
  const question = "Delete claim web api.http?";
  await assert.rejects(
    ask(bookWith("r1", "claim.delete", { type: "claim", id: "c1" }, question), 5_000),
  );
  const soon = new ReceiptBook();
  const expiresAt = new Date(Date.now() + 2_000).toISOString();
  soon.remember({
    receiptId: "r1",
    action: "claim.delete",
    target: { type: "claim", id: "c1" },
    expiresAt,
    question,
  });
  await assert.rejects(ask(soon, 5_000));
  assert.equal(waits.length, 2);
  assert.ok(waits[0] > 4_900 && waits[0] <= 5_000, `approval deadline: ${waits[0]} ms`);
  assert.ok(waits[1] > 1_900 && waits[1] <= 2_000, `receipt expiry: ${waits[1]} ms`);
});

Deno.test("gate: on the 2026-07-28 path an answer that comes back after the deadline does not count", async () => {
  const receipts = bookWith("r1", "claim.delete", { type: "claim", id: "c1" }, "Delete?");
  const lateState = receipts.openQuestion("r1", Date.now() - 1);
  const error = await obtainApproval({
    bridge: { approval: "auto", approvalMs: 5_000 },
    receipts,
    signal: new AbortController().signal,
    host: {
      canAsk: true,
      retried: {
        state: lateState,
        responses: { approval: { action: "accept", content: { approve: true } } },
      },
    },
  }, DELETE_CALL).then(() => null, (caught) => caught);
  assert.ok(error instanceof BridgeError, String(error));
  assert.equal(error.code, "portreeve_approval_unavailable");
  assert.equal(error.details?.reason, "no_answer");
  assert.equal(receipts.get("r1")?.decision, undefined, "a late yes approves nothing");
});
