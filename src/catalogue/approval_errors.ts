/**
 * The errors of the execute gate (src/catalogue/approval.ts), each saying what happened and
 * that nothing was sent; what to do next is error_codes.ts's. The acquire gate words its own
 * (tools/acquire_gate.ts) and shares the two below that fit both.
 */
import { BridgeError, Codes } from "../shared/errors.ts";
import { HostAskError } from "../shared/host_channel.ts";
import { MAX_PARTS, QUESTION_MAX } from "./question.ts";

/** The execute a refusal is about: its action and receipt. */
interface Refused {
  action: string;
  receiptId: string;
}

/** What the host answered to a question. */
type Answered = "accept" | "decline" | "cancel";

function short(receiptId: string): string {
  return receiptId.slice(0, 8);
}

/**
 * The host's "no": it may be a person's, or the host's own (some hosts decline by themselves
 * in milliseconds), so the message says what the host answered, not who decided. Without an
 * answer, the receipt was declined by an earlier call.
 */
export function declined(
  call: Refused,
  answered?: Answered,
  part?: { index: number; of: number },
): BridgeError {
  const receipt = `receipt ${short(call.receiptId)}`;
  const question = `${part ? `part ${part.index} of ${part.of} of ` : ""}the approval question`;
  const what = answered === undefined
    ? `${call.action} (${receipt}) was declined earlier`
    : answered === "accept"
    ? `The host answered ${question} for ${call.action} (${receipt}) without approve: true`
    : `The host answered "${answered}" to ${question} for ${call.action} (${receipt})`;
  return new BridgeError(
    Codes.approvalDeclined,
    `${what[0].toUpperCase()}${what.slice(1)}; nothing was sent to the daemon.`,
    false,
    {
      receiptId: call.receiptId,
      action: call.action,
      answer: answered ?? "declined_earlier",
    },
  );
}

export function hostCannotAsk(call: Refused): BridgeError {
  return new BridgeError(
    Codes.approvalUnavailable,
    `This host cannot ask its user (it did not declare MCP form elicitation), and this bridge makes no change a person has not approved, so ${call.action} (receipt ${
      short(call.receiptId)
    }) was refused; nothing was sent to the daemon.`,
    false,
    { receiptId: call.receiptId, reason: "host_cannot_ask" },
  );
}

export function nothingToApprove(
  call: Refused,
  kind: "nothing_to_do" | "preview_refused",
): BridgeError {
  const said = kind === "nothing_to_do" ? "would change nothing" : "would be refused by the daemon";
  return new BridgeError(
    Codes.conflict,
    `Its preview said ${call.action} (receipt ${
      short(call.receiptId)
    }) ${said}, so it was not put to the user; nothing was sent to the daemon.`,
    false,
    { receiptId: call.receiptId, reason: kind },
  );
}

export function tooLongToAsk(call: Refused, length: number): BridgeError {
  return new BridgeError(
    Codes.approvalUnavailable,
    `${call.action} (receipt ${
      short(call.receiptId)
    }) touches more than ${MAX_PARTS} questions can show the user (${
      length.toLocaleString("en-US")
    } characters; at most ${
      QUESTION_MAX.toLocaleString("en-US")
    } each), so nobody was asked; nothing was sent to the daemon.`,
    false,
    { receiptId: call.receiptId, action: call.action, reason: "too_long_to_ask" },
  );
}

/** The host cancelled the call during the question: execute and acquire gate alike. */
export function cancelledWhileAsking(details: Record<string, unknown>): BridgeError {
  return new BridgeError(
    Codes.cancelled,
    "The call was cancelled while the user was being asked; nothing was sent to the daemon.",
    false,
    details,
  );
}

/**
 * Why a question got no answer: what the host said when it failed to ask, or undefined when
 * the wait ran out (any other error counts as no answer).
 */
export function hostFailure(cause: unknown): string | undefined {
  return cause instanceof HostAskError && !cause.timedOut ? cause.message : undefined;
}

export function noAnswer(call: Refused, waitedMs: number, cause: unknown): BridgeError {
  const failed = hostFailure(cause);
  const why = failed === undefined
    ? `No answer from the user about receipt ${short(call.receiptId)} within ${
      Math.round(waitedMs / 1000)
    } s`
    : `The host could not ask the user about receipt ${short(call.receiptId)} (${failed})`;
  return new BridgeError(
    Codes.approvalUnavailable,
    `${why}; nothing was sent to the daemon.`,
    true,
    { receiptId: call.receiptId, reason: failed === undefined ? "no_answer" : "host_failed" },
  );
}

export function notIssuedHere(call: Refused): BridgeError {
  return new BridgeError(
    Codes.notFound,
    `Receipt ${call.receiptId} was not issued through this bridge process, and a receipt executes only through the bridge whose preview issued it; nothing was sent to the daemon.`,
    false,
    { receiptCode: "not_found", receiptId: call.receiptId, reason: "not_previewed_here" },
  );
}

/** The daemon's own receipt conflicts, found before the question instead of after it. */
export function receiptConflict(
  receiptCode: string,
  message: string,
  receiptId?: string,
): BridgeError {
  return new BridgeError(
    Codes.conflict,
    message,
    false,
    receiptId === undefined ? { receiptCode } : { receiptCode, receiptId },
  );
}

/** A second question about a receipt while the first is still open. */
export function questionOpen(call: Refused): BridgeError {
  return new BridgeError(
    Codes.approvalUnavailable,
    `The user is already being asked about receipt ${
      short(call.receiptId)
    }; nothing was sent to the daemon.`,
    true,
    { receiptId: call.receiptId, reason: "question_open" },
  );
}
