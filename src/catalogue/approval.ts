/**
 * A person's approval of a consequential change, asked through the host (MCP elicitation)
 * before anything consequential is sent to the daemon. This module alone mints the proofs
 * the daemon client demands for consequential requests (daemon/gate.ts): after the person's
 * yes, or when the approval mode lets the request through.
 *
 * - Executes: the receipt stays the binding evidence: the question is about one receipt, which
 *   this process's preview issued (in every mode); an answered receipt is never asked about
 *   again, a declined one never executes, and what the bridge learnt from the preview it
 *   returned is checked before anyone is asked.
 * - Inputs with a consequential value (acquire's reclaim policies): asked about the request
 *   and the evidence read just before; refused unasked when the host cannot ask.
 *
 * Modes: `required` (the default) lets a change through only on a person's yes through MCP;
 * `auto` (a person's opt-in in the host entry) lets an execute through unasked where the host
 * cannot ask, the host's own tool prompt standing in; `off` never asks.
 */
import { z } from "zod";
import { BridgeError } from "../shared/errors.ts";
import type { ApprovalBasis, ApprovalProof, GatedRequest, Minter } from "../daemon/gate.ts";
import type { Asking, IssuedReceipt, ReceiptBook } from "./receipt_book.ts";
import type { ApprovalMode } from "../shared/options.ts";
import type { AnswerWidget } from "../shared/host_treatment.ts";
import type { Question } from "./question.ts";
import {
  cancelledWhileAsking,
  declined,
  hostCannotAsk,
  noAnswer,
  nothingToApprove,
  notIssuedHere,
  questionOpen,
  receiptConflict,
  tooLongToAsk,
} from "./approval_errors.ts";

export { cancelledWhileAsking, hostFailure } from "./approval_errors.ts";
import {
  AnswerNeeded,
  APPROVAL_KEY,
  type ApprovalForm,
  approvalKey,
  HostAskError,
  type HostChannel,
} from "../shared/host_channel.ts";

/** Mints with the minter `approvals` holds; set in the class below, which alone can reach it. */
let mintWith: (approvals: Approvals, request: GatedRequest, basis: ApprovalBasis) => ApprovalProof;

/**
 * A bridge's approvals: the one holder of its gate's minter (daemon/gate.ts), handed in when the
 * bridge is built. Opaque to everything else: a tool gets a proof only through this module's
 * `obtainApproval` and `obtainInputApproval`.
 */
export class Approvals {
  readonly #minter: Minter;
  constructor(minter: Minter) {
    this.#minter = minter;
  }
  static {
    mintWith = (approvals, request, basis) => approvals.#minter(request, basis);
  }
}

function mint(ctx: ApprovalContext, request: GatedRequest, basis: ApprovalBasis): ApprovalProof {
  return mintWith(ctx.approvals, request, basis);
}

/** How a preview's receipt will be approved, as its data tells the agent. */
export const APPROVAL_ROUTES = ["host_asks_user", "agent_asks_user", "unavailable"] as const;
export type ApprovalRoute = typeof APPROVAL_ROUTES[number];

export interface ApprovalContext {
  /** This bridge's approvals: the minter of the proofs its daemon client accepts. */
  approvals: Approvals;
  bridge: { approval: ApprovalMode; approvalMs: number };
  receipts: ReceiptBook;
  host: HostChannel;
  signal: AbortSignal;
  /** How the connected host shows the yes/no field (its profile's); unset: not known. */
  answerWidget?: AnswerWidget;
}

/** What the preview tells the agent: who will ask the person, or that nobody can. */
export function approvalRoute(ctx: Pick<ApprovalContext, "bridge" | "host">): ApprovalRoute {
  if (ctx.bridge.approval === "off") return "agent_asks_user";
  if (ctx.host.canAsk) return "host_asks_user";
  return ctx.bridge.approval === "required" ? "unavailable" : "agent_asks_user";
}

/** The yes and the no of the approval field, in the words of each host's widget for it. */
const ANSWER_WORDS: Readonly<Record<AnswerWidget, { yes: string; no: string }>> = {
  // Claude Code: a checkbox, then Accept / Decline (Esc cancels).
  checkbox: { yes: "Tick the box, then Accept,", no: "leave it unticked, Decline or press Esc" },
  // Codex: a list, "1. True / 2. False".
  true_false: { yes: "True", no: "False" },
  // Copilot CLI: a list, "Yes / No", No chosen first.
  yes_no: { yes: "Yes", no: "No" },
  // A host whose widget is not known: words that fit a checkbox, a switch and a list alike.
  unknown: { yes: "Yes (true)", no: "no (false)" },
};

/**
 * The form around one question: a single boolean, described in the words of the connected
 * host's widget (ANSWER_WORDS). A change asked in parts names its part in the title, and each
 * part's no refuses the whole change.
 */
export function approvalForm(
  message: string,
  widget: AnswerWidget = "unknown",
  part?: { index: number; of: number },
): ApprovalForm {
  const { yes, no } = ANSWER_WORDS[widget];
  const whole = part === undefined || part.of === 1;
  return {
    message,
    requestedSchema: {
      type: "object",
      properties: {
        approve: {
          type: "boolean",
          title: whole
            ? "Approve exactly this change?"
            : `Approve part ${part.index} of ${part.of} of this change?`,
          description: whole
            ? `${yes} to let PortReeve make it; ${no} to change nothing.`
            : `${yes} to approve this part; ${no} to refuse the whole change.`,
          default: false,
        },
      },
      required: ["approve"],
    },
  };
}

/** The forms of a change's questions, one per part, in the connected host's words. */
function approvalForms(ctx: Pick<ApprovalContext, "answerWidget">, parts: readonly string[]) {
  return parts.map((message, i) =>
    approvalForm(message, ctx.answerWidget, { index: i + 1, of: parts.length })
  );
}

export interface ExecuteCall {
  /** The execute tool's name, e.g. portreeve_claim_delete_execute. */
  tool: string;
  action: string;
  target: { type: string; id: string };
  receiptId: string;
  /** The execute's daemon request, which the proof will cover and nothing else. */
  request: GatedRequest;
}

/**
 * The proof the execute's request needs, once it may go to the daemon; throws a
 * `BridgeError` (or `AnswerNeeded`) otherwise. Nothing here talks to the daemon.
 *
 * In every mode, `off` included, only a receipt this process's preview issued executes, and a
 * declined one never does; a receipt whose preview said it would change nothing or be refused
 * is never put to anyone.
 */
export async function obtainApproval(
  ctx: ApprovalContext,
  call: ExecuteCall,
): Promise<ApprovalProof> {
  const mode = ctx.bridge.approval;
  const book = ctx.receipts;
  const issued = book.get(call.receiptId);
  if (!issued) throw notIssuedHere(call);
  if (issued.decision === "declined") throw declined(call);
  // An approved (or executed) receipt is never asked about again: the daemon executes it or
  // replays its recorded outcome, even past its expiry.
  if (issued.decision === "approved") return mint(ctx, call.request, "receipt_answered");
  checkReceipt(issued, call, book.now());
  const asking = issued.asking;
  if (asking.kind === "nothing_to_do" || asking.kind === "preview_refused") {
    throw nothingToApprove(call, asking.kind);
  }
  if (mode === "off") return mint(ctx, call.request, "approval_off");
  if (!ctx.host.canAsk) {
    if (mode === "required") throw hostCannotAsk(call);
    // `auto`, chosen by a person in the host entry: the host's own tool prompt stands in.
    return mint(ctx, call.request, "agent_asks_user");
  }
  if (asking.kind === "too_long_to_ask") throw tooLongToAsk(call, asking.length);
  // Each part gets the full wait, never past the receipt's expiry.
  const deadline = () => Math.min(book.now() + ctx.bridge.approvalMs, Date.parse(issued.expiresAt));
  const answer = await askPerson(ctx, approvalForms(ctx, asking.parts), deadline, {
    subject: call.receiptId,
    busy: () => questionOpen(call),
    cancelled: () => cancelledWhileAsking({ receiptId: call.receiptId }),
    noAnswer: (waitedMs, cause) => noAnswer(call, waitedMs, cause),
  });
  book.decide(call.receiptId, answer.approved ? "approved" : "declined");
  if (!answer.approved) throw declined(call, answer.action, answer.part);
  return mint(ctx, call.request, "person");
}

/** The daemon's own receipt checks, made before anyone is asked or anything is sent. */
function checkReceipt(issued: IssuedReceipt, call: ExecuteCall, now: number): void {
  if (issued.action !== call.action || !sameTarget(issued.target, call.target)) {
    throw receiptConflict(
      "receipt_mismatch",
      "The receipt was issued for a different action or target.",
      call.receiptId,
    );
  }
  if (!(Date.parse(issued.expiresAt) > now)) {
    throw receiptConflict(
      "receipt_expired",
      `Receipt ${call.receiptId} expired at ${issued.expiresAt}.`,
    );
  }
}

/**
 * What a preview's data says about approval: who will ask the person, or null when nobody
 * will be asked because executing this receipt will be refused unasked (it would change
 * nothing, the daemon would refuse it, or its question cannot name everything it touches).
 */
export function previewApproval(
  ctx: Pick<ApprovalContext, "bridge" | "host">,
  asking: Asking,
): ApprovalRoute | null {
  if (asking.kind === "nothing_to_do" || asking.kind === "preview_refused") return null;
  const route = approvalRoute(ctx);
  return asking.kind === "too_long_to_ask" && route === "host_asks_user" ? null : route;
}

/** The error an execute of this receipt would end in before anyone is asked, if any. */
export function refusalFor(
  ctx: Pick<ApprovalContext, "bridge" | "host">,
  call: Pick<ExecuteCall, "action" | "receiptId">,
  asking: Asking,
): BridgeError | undefined {
  if (asking.kind === "nothing_to_do" || asking.kind === "preview_refused") {
    return nothingToApprove(call, asking.kind);
  }
  if (asking.kind === "too_long_to_ask" && approvalRoute(ctx) === "host_asks_user") {
    return tooLongToAsk(call, asking.length);
  }
  return undefined;
}

/** What the person would be asked about an input call, from read-only lookups. */
export interface InputQuestion {
  /** Names this question: the same request against the same evidence is the same subject. */
  subject: string;
  /** The whole question (see question.ts), or how long it would have been. */
  question: Question;
}

/** An input value with a consequential effect, to be approved before its request is sent. */
export interface InputCall {
  /** The request the proof will cover. */
  request: GatedRequest;
  /**
   * Looks (reads only) at what the request would do now: the question to ask, or undefined
   * when nothing consequential would happen, so there is nothing to approve.
   */
  prepare(): Promise<InputQuestion | undefined>;
  /** Errors for each way of not getting a yes; nothing has been sent when they are thrown. */
  refusals: {
    /** The host cannot ask: `required` refuses, `auto` sends the agent to the receipt pair. */
    hostCannotAsk(mode: "required" | "auto"): BridgeError;
    /** The question cannot fit `QUESTION_MAX`: it would have been `length` characters. */
    tooLongToAsk(length: number): BridgeError;
    /**
     * `answered`: what the host said (to `part` of a question asked in parts); absent when the
     * subject was declined earlier.
     */
    declined(answered?: Answer["action"], part?: Answer["part"]): BridgeError;
    busy(): BridgeError;
    cancelled(): BridgeError;
    noAnswer(waitedMs: number, cause: unknown): BridgeError;
  };
}

/**
 * The proof for a request whose input value is consequential (e.g. an acquire that reclaims):
 * `off` sends it as the reference bridge did, unasked; a host that cannot ask gets a refusal
 * before anything is read (there is no receipt for the host's prompt to stand on, so `auto`
 * refuses too); otherwise `prepare` looks at what would happen and the person is asked.
 * Undefined: nothing consequential would happen now, so nothing was asked and no proof is
 * given. A declined subject stays declined.
 */
export async function obtainInputApproval(
  ctx: ApprovalContext,
  call: InputCall,
): Promise<ApprovalProof | undefined> {
  const mode = ctx.bridge.approval;
  if (mode === "off") return mint(ctx, call.request, "approval_off");
  if (!ctx.host.canAsk) throw call.refusals.hostCannotAsk(mode);
  const asked = await call.prepare();
  if (!asked) return undefined;
  if (ctx.receipts.inputDeclined(asked.subject)) throw call.refusals.declined();
  if (!asked.question.ok) throw call.refusals.tooLongToAsk(asked.question.length);
  const deadline = () => ctx.receipts.now() + ctx.bridge.approvalMs;
  const answer = await askPerson(ctx, approvalForms(ctx, asked.question.parts), deadline, {
    subject: asked.subject,
    ...call.refusals,
  });
  if (!answer.approved) {
    ctx.receipts.declineInput(asked.subject);
    throw call.refusals.declined(answer.action, answer.part);
  }
  return mint(ctx, call.request, "person");
}

/** What one question is about, and the errors for not getting its answer. */
interface Subject {
  /** The receipt id, or an input call's subject. */
  subject: string;
  busy(): BridgeError;
  cancelled(): BridgeError;
  noAnswer(waitedMs: number, cause: unknown): BridgeError;
}

/**
 * Asks in the host's protocol era; approved only by `approve: true` to every part. `deadline`
 * gives the time a question may wait until, from when it is asked.
 */
function askPerson(
  ctx: ApprovalContext,
  forms: readonly ApprovalForm[],
  deadline: () => number,
  asking: Subject,
): Promise<Answer> {
  return ctx.host.ask
    ? askNow(ctx, asking, forms, deadline)
    : answerFromRetry(ctx, asking, forms, deadline);
}

/** 2025 era: one question at a time per subject, each part waited for until its deadline. */
async function askNow(
  ctx: ApprovalContext,
  asking: Subject,
  forms: readonly ApprovalForm[],
  deadline: () => number,
): Promise<Answer> {
  const release = ctx.receipts.startAsking(asking.subject);
  if (!release) throw asking.busy();
  try {
    for (const [index, form] of forms.entries()) {
      const timeoutMs = Math.max(1, deadline() - ctx.receipts.now());
      let answer: Answer;
      try {
        answer = readAnswer(await ctx.host.ask!(form, { timeoutMs, signal: ctx.signal }));
      } catch (error) {
        if (error instanceof BridgeError) throw error;
        if (ctx.signal.aborted) throw asking.cancelled();
        throw asking.noAnswer(timeoutMs, error);
      }
      // Any part's no refuses the whole change: the parts after it are not asked.
      if (!answer.approved) return { ...answer, part: partOf(index, forms) };
    }
    return { approved: true, action: "accept" };
  } finally {
    release();
  }
}

/**
 * 2026-07-28 era: the server holds no request open. The first call returns every part, a form
 * each, in one round; the host retries with the answers and the state we minted, which must
 * name this subject and these parts. Approved only by a yes to every part.
 */
async function answerFromRetry(
  ctx: ApprovalContext,
  asking: Subject,
  forms: readonly ApprovalForm[],
  deadline: () => number,
): Promise<Answer> {
  const book = ctx.receipts;
  const retried = ctx.host.retried;
  const digest = await partsDigest(forms);
  const question = retried?.state === undefined ? undefined : book.takeQuestion(retried.state);
  const answers = retried?.responses;
  if (question && question.receiptId === asking.subject && answers?.[APPROVAL_KEY] !== undefined) {
    if (book.now() > question.deadline) {
      throw asking.noAnswer(question.deadline - question.askedAt, undefined);
    }
    if (question.digest === digest) {
      for (const index of forms.keys()) {
        let read: Answer;
        try {
          const answer = answers[approvalKey(index)];
          if (answer === undefined) throw new HostAskError(false, `no answer to part ${index + 1}`);
          read = readAnswer(answer);
        } catch (error) {
          throw asking.noAnswer(0, error);
        }
        if (!read.approved) return { ...read, part: partOf(index, forms) };
      }
      return { approved: true, action: "accept" };
    }
  }
  throw new AnswerNeeded(forms, book.openQuestion(asking.subject, deadline(), { digest }));
}

/** `{index: 2, of: 3}` for the second of three parts; undefined for a question asked whole. */
function partOf(index: number, forms: readonly unknown[]): Answer["part"] {
  return forms.length === 1 ? undefined : { index: index + 1, of: forms.length };
}

/** A digest of every part's question, so a yes counts only towards the parts it answered. */
function partsDigest(forms: readonly ApprovalForm[]): Promise<string> {
  return sha256Hex(forms.map((form) => form.message).join("\u0000"));
}

/** The SHA-256 of `text` (UTF-8), in hex: what names a question's subject. */
export async function sha256Hex(text: string): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

const elicitAnswer = z.object({
  action: z.enum(["accept", "decline", "cancel"]),
  content: z.record(z.string(), z.unknown()).nullish(),
});

/** What the host answered, and whether that approves the change. */
export interface Answer {
  approved: boolean;
  action: z.output<typeof elicitAnswer>["action"];
  /** Of a change asked in parts, the part that got this answer. */
  part?: { index: number; of: number };
}

/** Only an accepted form with `approve: true` approves; anything the user typed is dropped. */
function readAnswer(raw: unknown): Answer {
  const answer = elicitAnswer.safeParse(raw);
  if (!answer.success) throw new HostAskError(false, "its answer was not an elicitation result");
  const { action, content } = answer.data;
  return { approved: action === "accept" && content?.approve === true, action };
}

function sameTarget(a: { type: string; id: string }, b: { type: string; id: string }): boolean {
  return a.type === b.type && a.id === b.id;
}
