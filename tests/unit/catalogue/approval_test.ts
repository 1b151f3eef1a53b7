/**
 * The approval gate without a process: which declared capabilities count as "can ask", what the
 * receipt book remembers, that only a yes approves (to every part of a change asked in parts),
 * and that the form's words are those of the host's widget. The end-to-end suite drives the
 * same code through real hosts' protocol eras (tests/e2e/approval_test.ts).
 */
import assert from "node:assert/strict";
import { asksForms } from "../../../src/transport/server.ts";
import { ReceiptBook } from "../../../src/catalogue/receipt_book.ts";
import { type ApprovalContext, obtainApproval } from "../../../src/catalogue/approval.ts";
import {
  AnswerNeeded,
  type ApprovalForm,
  HostAskError,
  type HostChannel,
} from "../../../src/shared/host_channel.ts";
import type { AnswerWidget } from "../../../src/shared/host_treatment.ts";
import { nextStepFor } from "../../../src/shared/error_codes.ts";
import { DEFAULT_APPROVAL_MODE } from "../../../src/shared/options.ts";
import { BridgeError } from "../../../src/shared/errors.ts";
import { post } from "../../../src/daemon/routes.ts";
import { consequential } from "../../../src/daemon/effects.ts";
import { z } from "zod";
import { approvalPair } from "../../support/approvals.ts";

/** This bridge's approvals (no gate checks their proofs here). */
const APPROVALS = approvalPair().approvals;

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
/** The receipt books' clock: the time stands still here, so no margin of real time is needed. */
const NOW = Date.UTC(2026, 10, 30, 12);
const clock = () => NOW;
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
  const book = new ReceiptBook(2, clock);
  const receipt = (id: string) => ({
    receiptId: id,
    action: "claim.delete",
    target: { type: "claim", id },
    expiresAt: new Date(NOW + 60_000).toISOString(),
    asking: { kind: "question" as const, parts: [`delete ${id}`] },
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
  const state = book.openQuestion("b", NOW + 1000, { digest: "d" });
  assert.equal(book.takeQuestion(state)?.receiptId, "b");
  assert.equal(book.takeQuestion(state), undefined, "an answer counts once");
});

/** A receipt book holding one receipt that expires in a minute. */
function bookWith(
  receiptId: string,
  action: string,
  target: { type: string; id: string },
  question: string | string[],
): ReceiptBook {
  const receipts = new ReceiptBook(undefined, clock);
  const expiresAt = new Date(NOW + 60_000).toISOString();
  receipts.remember({
    receiptId,
    action,
    target,
    expiresAt,
    asking: { kind: "question", parts: [question].flat() },
  });
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
    approvals: APPROVALS,
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

Deno.test("gate: only an accepted answer with approve: true approves; it is asked for once", async () => {
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
  const base = {
    approvals: APPROVALS,
    bridge: { approval: "required" as const, approvalMs: 5_000 },
    receipts,
  };
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
      approvals: APPROVALS,
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
  const soon = new ReceiptBook(undefined, clock);
  const expiresAt = new Date(NOW + 2_000).toISOString();
  soon.remember({
    receiptId: "r1",
    action: "claim.delete",
    target: { type: "claim", id: "c1" },
    expiresAt,
    asking: { kind: "question", parts: [question] },
  });
  await assert.rejects(ask(soon, 5_000));
  assert.equal(waits.length, 2);
  assert.deepEqual(waits, [5_000, 2_000], "the approval deadline, then the receipt's expiry");
});

Deno.test("gate: on the 2026-07-28 path an answer that comes back after the deadline does not count", async () => {
  const receipts = bookWith("r1", "claim.delete", { type: "claim", id: "c1" }, "Delete?");
  const lateState = receipts.openQuestion("r1", NOW - 1, { digest: "d" });
  const error = await obtainApproval({
    approvals: APPROVALS,
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

/** What the gate does with receipt r1 of `book`: "sent" (a proof minted) or the error code. */
async function outcome(
  mode: "required" | "auto" | "off",
  canAsk: boolean,
  book: ReceiptBook,
  asked: string[] = [],
): Promise<string> {
  const ctx: ApprovalContext = {
    approvals: APPROVALS,
    bridge: { approval: mode, approvalMs: 5_000 },
    receipts: book,
    signal: new AbortController().signal,
    host: canAsk
      ? {
        canAsk,
        ask: (form) => {
          asked.push(form.message);
          return Promise.resolve({ action: "accept", content: { approve: true } });
        },
      }
      : { canAsk },
  };
  return (await code(obtainApproval(ctx, DELETE_CALL))) ?? "sent";
}

const SITUATIONS = [
  ["required", false],
  ["required", true],
  ["auto", false],
  ["auto", true],
  ["off", false],
  ["off", true],
] as const;

Deno.test("gate: in every mode, a receipt this process did not issue is refused, unsent and unasked", async () => {
  for (const [mode, canAsk] of SITUATIONS) {
    const asked: string[] = [];
    // Bridge B's book: bridge A (or an earlier process) issued r1, this one never did.
    const other = new ReceiptBook();
    const error = await obtainApproval({
      approvals: APPROVALS,
      bridge: { approval: mode, approvalMs: 5_000 },
      receipts: other,
      signal: new AbortController().signal,
      host: { canAsk },
    }, DELETE_CALL).then(() => null, (caught) => caught);
    assert.ok(error instanceof BridgeError, `${mode}/${canAsk}: ${error}`);
    assert.equal(error.code, "portreeve_not_found");
    assert.equal(error.details.reason, "not_previewed_here");
    assert.equal(await outcome(mode, canAsk, other, asked), "portreeve_not_found");
    assert.deepEqual(asked, []);
  }
});

Deno.test("gate: in every mode, a declined receipt is never sent again", async () => {
  for (const [mode, canAsk] of SITUATIONS) {
    const book = bookWith("r1", "claim.delete", { type: "claim", id: "c1" }, "Delete?");
    book.decide("r1", "declined");
    const asked: string[] = [];
    assert.equal(
      await outcome(mode, canAsk, book, asked),
      "portreeve_approval_declined",
      `${mode}, host ${canAsk ? "can" : "cannot"} ask`,
    );
    assert.deepEqual(asked, []);
  }
});

Deno.test("gate: the default mode refuses on a host that cannot ask, naming the opt-in", async () => {
  assert.equal(DEFAULT_APPROVAL_MODE, "required");
  const book = bookWith("r1", "claim.delete", { type: "claim", id: "c1" }, "Delete?");
  const error = await obtainApproval({
    approvals: APPROVALS,
    bridge: { approval: DEFAULT_APPROVAL_MODE, approvalMs: 5_000 },
    receipts: book,
    signal: new AbortController().signal,
    host: { canAsk: false },
  }, DELETE_CALL).then(() => null, (caught) => caught);
  assert.ok(error instanceof BridgeError);
  assert.equal(error.code, "portreeve_approval_unavailable");
  assert.equal(error.details.reason, "host_cannot_ask");
  assert.equal(error.retryable, false);
  const step = nextStepFor(error.code, error.details);
  assert.match(step, /--approval auto/);
  assert.match(step, /Tell the user/);
  // The opt-in is the person's: a host that cannot ask gets through only in `auto` or `off`.
  assert.equal(await outcome("auto", false, book), "sent");
});

Deno.test("gate: a receipt whose preview found nothing to do or a refusal is never put to anyone", async () => {
  for (const kind of ["nothing_to_do", "preview_refused"] as const) {
    for (const [mode, canAsk] of SITUATIONS) {
      const book = bookWith("r1", "claim.delete", { type: "claim", id: "c1" }, "unused");
      book.remember({ ...book.get("r1")!, asking: { kind } });
      const asked: string[] = [];
      assert.equal(await outcome(mode, canAsk, book, asked), "portreeve_conflict", kind);
      assert.deepEqual(asked, []);
    }
  }
});

Deno.test("gate: a question too long to show is refused wherever the bridge would ask", async () => {
  const expected: Record<string, string> = {
    "required/false": "portreeve_approval_unavailable",
    "required/true": "portreeve_approval_unavailable",
    // The host's own prompt (auto) or nobody (off) decides: the bridge asks no question.
    "auto/false": "sent",
    "auto/true": "portreeve_approval_unavailable",
    "off/false": "sent",
    "off/true": "sent",
  };
  for (const [mode, canAsk] of SITUATIONS) {
    const book = bookWith("r1", "claim.delete", { type: "claim", id: "c1" }, "unused");
    book.remember({ ...book.get("r1")!, asking: { kind: "too_long_to_ask", length: 2_975 } });
    const asked: string[] = [];
    const got = await outcome(mode, canAsk, book, asked);
    assert.equal(got, expected[`${mode}/${canAsk}`], `${mode}/${canAsk}`);
    assert.deepEqual(asked, []);
  }
});

/** The gate's context in the default mode, with `receipts` and a host that can ask. */
function askingCtx(
  receipts: ReceiptBook,
  host: Omit<HostChannel, "canAsk">,
  answerWidget?: AnswerWidget,
): ApprovalContext {
  const signal = new AbortController().signal;
  const bridge = { approval: "required" as const, approvalMs: 5_000 };
  return {
    approvals: APPROVALS,
    bridge,
    receipts,
    signal,
    answerWidget,
    host: { canAsk: true, ...host },
  };
}

Deno.test("gate: the question's form is one boolean in the words of each host's widget", async () => {
  /** The form a host drawing `widget` is sent, for a question whole or in `parts`. */
  const formFor = async (widget: AnswerWidget | undefined, parts = ["Delete?"]) => {
    const forms: ApprovalForm[] = [];
    const receipts = bookWith("r1", "claim.delete", { type: "claim", id: "c1" }, parts);
    const ask = (form: ApprovalForm) => {
      forms.push(form);
      return Promise.resolve({ action: "decline" });
    };
    await obtainApproval(askingCtx(receipts, { ask }, widget), DELETE_CALL).catch(() => {});
    const field = forms[0].requestedSchema.properties.approve;
    assert.equal(field.type, "boolean");
    assert.equal(field.default, false);
    return field;
  };
  // Claude Code: a checkbox, then Accept or Decline.
  const checkbox = await formFor("checkbox");
  assert.equal(checkbox.title, "Approve exactly this change?");
  assert.equal(
    checkbox.description,
    "Tick the box, then Accept, to let PortReeve make it; leave it unticked, Decline or press Esc to change nothing.",
  );
  // Codex: "1. True / 2. False".
  assert.equal(
    (await formFor("true_false")).description,
    "True to let PortReeve make it; False to change nothing.",
  );
  // Copilot CLI: "Yes / No".
  const yesNo = (await formFor("yes_no")).description;
  assert.equal(yesNo, "Yes to let PortReeve make it; No to change nothing.");
  assert.doesNotMatch(yesNo, /true|false|tick/i);
  // A host of no known widget: words that fit any.
  assert.equal(
    (await formFor(undefined)).description,
    "Yes (true) to let PortReeve make it; no (false) to change nothing.",
  );
  // A part of a question asked in parts says which, and that a no refuses it all.
  const part = await formFor("yes_no", ["Part one.", "Part two."]);
  assert.equal(part.title, "Approve part 1 of 2 of this change?");
  assert.equal(part.description, "Yes to approve this part; No to refuse the whole change.");
});

Deno.test("gate: a change in parts is asked part by part; only a yes to every part approves", async () => {
  const parts = ["Part one.", "Part two.", "Part three."];
  const run = async (answers: unknown[]) => {
    const asked: string[] = [];
    const receipts = bookWith("r1", "claim.delete", { type: "claim", id: "c1" }, parts);
    const ask = (form: ApprovalForm) => {
      asked.push(form.message);
      return Promise.resolve(answers[asked.length - 1]);
    };
    const error = await obtainApproval(askingCtx(receipts, { ask }), DELETE_CALL)
      .then(() => undefined, (error) => error as BridgeError);
    return { asked, error, decision: receipts.get("r1")?.decision };
  };
  const yes = { action: "accept", content: { approve: true } };
  const all = await run([yes, yes, yes]);
  assert.deepEqual(all.asked, parts);
  assert.equal(all.error, undefined);
  assert.equal(all.decision, "approved");
  // A no to part 2 of 3: part 3 is never asked, and the receipt stays declined.
  const no = await run([yes, { action: "decline" }, yes]);
  assert.deepEqual(no.asked, parts.slice(0, 2));
  assert.equal(no.error?.code, "portreeve_approval_declined");
  assert.match(no.error!.message, /answered "decline" to part 2 of 3 of the approval question/);
  assert.equal(no.decision, "declined");
});

Deno.test("gate: on the 2026-07-28 path a change in parts goes in one round, a form per part", async () => {
  const parts = ["Part one.", "Part two."];
  const receipts = bookWith("r1", "claim.delete", { type: "claim", id: "c1" }, parts);
  const ask = (retried?: HostChannel["retried"]) =>
    obtainApproval(askingCtx(receipts, { retried }), DELETE_CALL)
      .then(() => undefined, (error) => error);
  const round = (await ask() as AnswerNeeded).result();
  assert.deepEqual(Object.keys(round.inputRequests), ["approval", "approval_2"]);
  assert.equal(round.inputRequests.approval_2.params.message, "Part two.");
  const yes = { action: "accept", content: { approve: true } };
  // An answer to one part only is no answer; the state counts once.
  const partial = await ask({ state: round.requestState, responses: { approval: yes } });
  assert.equal((partial as BridgeError).code, "portreeve_approval_unavailable");
  assert.equal(receipts.get("r1")?.decision, undefined);
  const again = (await ask() as AnswerNeeded).result();
  const declined = await ask({
    state: again.requestState,
    responses: { approval: yes, approval_2: { action: "decline" } },
  });
  assert.match((declined as BridgeError).message, /"decline" to part 2 of 2/);
  assert.equal(receipts.get("r1")?.decision, "declined");
});
