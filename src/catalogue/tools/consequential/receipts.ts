/**
 * The receipt pattern shared by the seven preview/execute pairs: a preview returns the
 * daemon's evidence with a short-lived receipt and a summary a person can approve; an execute
 * sends only the receipt and the explicit target, and the daemon acts or replays.
 */
import { z } from "zod";
import type { Json } from "../../../shared/json.ts";
import { type AnyTool, defineTool } from "../../define.ts";
import { declared, timestamp, uuid } from "../../shapes.ts";
import { mutate } from "../../daemon_calls.ts";
import {
  type ConsequentialEffect,
  coordinates,
  pathOf,
  post,
  segmentsFromInput,
} from "../../routes.ts";
import { Capability } from "../../../daemon/capabilities.ts";
import type { ToolContext } from "../../context.ts";
import { cutText } from "../../../shared/answer_bounds.ts";
import {
  APPROVAL_ROUTES,
  type ApprovalRoute,
  obtainApproval,
  previewApproval,
  refusalFor,
} from "../../approval.ts";
import { type Asked, clockWords, idWords, question, words } from "../../question.ts";
import { type Fragment, list, say, SUMMARY_MAX } from "../../summary.ts";
import type { Asking } from "../../receipt_book.ts";
import { nextStepFor } from "../../../shared/error_codes.ts";
import { type OutcomeCheck, PREVIEW_CHECK } from "../../outcome_checks.ts";
import type { ResultView } from "../../../results/view.ts";

const CAPS = [Capability.mcpFoundations];

const target = z.object({ type: z.string(), id: z.string() });

const record = () => z.looseObject({});

/** A consequential preview as the daemon sends it: the receipt and the evidence it binds. */
interface DaemonPreview {
  receiptId: string;
  action: string;
  target: { type: string; id: string };
  proposal: Json;
  observed: Json;
  expiresAt: string;
}

/**
 * The schema of a preview's reply, with what its `explain` reads of the daemon's evidence
 * (and proposal). Built where the preview is defined, so the types there are concrete.
 */
export function previewReply<Observed extends z.ZodType<Json>, Proposal extends z.ZodType<Json>>(
  observed: Observed,
  proposal: Proposal,
) {
  return z.looseObject({
    receiptId: uuid(),
    action: z.string(),
    target: z.looseObject({ type: z.string(), id: z.string() }),
    proposal,
    observed,
    expiresAt: timestamp(),
  });
}

/** A preview's data: the receipt, what it means for a person, and the daemon's evidence. */
const previewOutput = (shown: PreviewShapes) =>
  z.object({
    receiptId: uuid(),
    action: z.string(),
    target,
    /**
     * When the receipt expires; null when its execute refuses it whenever it comes (there is
     * nothing to do, or the daemon would refuse it: `approval` is null too).
     */
    expiresAt: timestamp().nullable(),
    /** What executing would do, for a person to approve. */
    summary: z.string(),
    /** Why executing would not do what was asked; null when nothing stands in the way. */
    blockers: z.array(z.string()).nullable(),
    /**
     * What the agent must do next: a person approves this preview before its execute. Null when
     * there is nothing to do (the summary says so, and the execute would refuse unasked).
     */
    nextStep: z.string().nullable(),
    // The daemon's evidence as it sent it: declared in full, read where `explain` needs it.
    proposal: declared(shown.proposal),
    observed: declared(shown.observed),
    /**
     * How approval happens: the execute asks the user through the host, the agent must ask
     * the user itself (`--approval auto` or `off`), or (a host that cannot ask, by default)
     * the execute will refuse. Null: nothing to approve, and the execute will refuse unasked
     * (nextStep says why, or the summary that there is nothing to do).
     */
    approval: z.enum(APPROVAL_ROUTES).nullable(),
  });

/** The whole shape of a preview's proposal and evidence, as its output schema declares it. */
interface PreviewShapes {
  proposal: z.ZodType;
  observed: z.ZodType;
}

/** A preview's reply whose proposal `explain` does not read. */
export function evidenceReply<Observed extends z.ZodType<Json>>(observed: Observed) {
  return previewReply(observed, record());
}

/** What a preview's evidence means: a sentence for the agent, a question for the person. */
export interface Explained {
  /** What executing would do, in one sentence for the agent (summary.ts). */
  effect: Fragment;
  blockers: Fragment[];
  /** What the person is asked: the change and each thing it touches (question.ts). */
  asked: Omit<Asked, "close">;
  nothing?: "nothing_to_do" | "preview_refused";
}

interface PreviewSpec<In extends z.ZodObject, Reply extends z.ZodType<DaemonPreview>> {
  name: string;
  /** The execute that acts on this preview's receipt, named in what the agent is told. */
  execute: string;
  title: string;
  description: string;
  input: In;
  /** The preview route; `{name}` segments come from the input fields of those names. */
  path: string;
  body?(input: z.output<In>): Json;
  /** The reply's schema (`previewReply`), checked where it arrives. */
  reply: Reply;
  /** The proposal and evidence in full, for the output schema. */
  shown: PreviewShapes;
  /**
   * The effect and the blockers read from the daemon's evidence: a sentence for the agent
   * (`say`), and what the person is asked, every value on a labelled line of its own
   * (question.ts). `nothing`: executing would change nothing, or the daemon would refuse it;
   * it is then never put to a person.
   */
  explain(preview: z.output<Reply>): Explained;
  /** The target exactly as its execute will send it, so a mismatch is found before asking. */
  target(input: z.output<In>): { type: string; id: string };
  /** What the preview's result states once though the daemon sends it twice (view.ts). */
  view?: ResultView;
}

export function previewTool<In extends z.ZodObject, Reply extends z.ZodType<DaemonPreview>>(
  spec: PreviewSpec<In, Reply>,
): AnyTool {
  const execute = spec.execute;
  const route = post(
    spec.path,
    spec.reply,
    coordinates("records a receipt with a dry-run forecast; changes nothing else"),
    PREVIEW_CHECK,
  );
  const segments = segmentsFromInput(spec.name, route, spec.input);
  return defineTool({
    name: spec.name,
    title: spec.title,
    kind: "preview",
    capabilities: CAPS,
    description: spec.description,
    input: spec.input,
    output: previewOutput(spec.shown),
    view: spec.view,
    routes: [route],
    async call(ctx, input) {
      const preview = await mutate(ctx, route, segments(input), spec.body?.(input) ?? {});
      const { effect, blockers, asked, nothing } = spec.explain(preview);
      const blocked = blockers.length > 0
        ? ` ${say`Blocked: ${list(blockers, "; ")}.`.plain()}`
        : "";
      const { receiptId, action, expiresAt } = preview;
      const asking = askingOf(nothing, () => question({ ...asked, close: [receiptLine(preview)] }));
      ctx.receipts.remember({ receiptId, action, target: spec.target(input), expiresAt, asking });
      const approval = previewApproval(ctx, asking);
      const refusal = refusalFor(ctx, { action, receiptId }, asking);
      return {
        receiptId,
        action,
        target: preview.target,
        expiresAt: nothing ? null : expiresAt,
        // receiptId and expiresAt stand beside it in the data; the text line names them.
        // Short by construction (summary.ts), so every host shows it whole.
        summary: cutText(`${effect.plain()}${blocked}`, SUMMARY_MAX),
        blockers: blockers.length > 0 ? blockers.map((blocker) => blocker.plain()) : null,
        nextStep: nothing === "nothing_to_do"
          ? null
          : refusal
          ? `${execute} will refuse this receipt: ${nextStepFor(refusal.code, refusal.details)}`
          : approvalStep(execute, blockers.length > 0, approval ?? "unavailable"),
        proposal: preview.proposal,
        observed: preview.observed,
        approval,
      };
    },
  });
}

/** What executing will put to a person: nothing, or the question (which may not fit). */
function askingOf(
  nothing: Explained["nothing"],
  ask: () => ReturnType<typeof question>,
): Asking {
  if (nothing) return { kind: nothing };
  const asked = ask();
  return asked.ok
    ? { kind: "question", parts: asked.parts }
    : { kind: "too_long_to_ask", length: asked.length };
}

/**
 * `Receipt 8c6f1a2b expires at 12:34:56 UTC.`: what a person reads of the receipt, whose id and
 * expiry the reply's schema checked (a UUID, a timestamp).
 */
function receiptLine(receipt: { receiptId: string; expiresAt: string }): ReturnType<typeof words> {
  return words`Receipt ${idWords(receipt.receiptId.slice(0, 8))} expires at ${
    clockWords(receipt.expiresAt)
  }.`;
}

/**
 * Hosts that auto-approve tool calls would otherwise let a model go straight from preview to
 * execute; this sentence sits in the data because some hosts never show a success's text.
 */
function approvalStep(
  execute: string,
  blocked: boolean,
  route: ApprovalRoute,
): string {
  // receiptId stands beside this sentence in the data (and expiresAt, which bounds it).
  const ask = {
    host_asks_user:
      `Show the user this preview, then call ${execute} with its receiptId: the host asks them to approve.`,
    // A host's own tool prompt (or none, under auto-approval) is not the person's yes.
    agent_asks_user:
      `Show the user this preview; only after they explicitly approve, call ${execute} with its receiptId.`,
    // The execute's refusal says the rest (approvalUnavailable's next step).
    unavailable:
      `${execute} will refuse: this host cannot ask the user (they can add --approval auto to portreeve's entry).`,
  }[route];
  return blocked
    ? `Executing would not do all that was asked: resolve the blockers and preview again, or ${
      ask.charAt(0).toLowerCase()
    }${ask.slice(1)}`
    : ask;
}

interface ExecuteSpec<In extends z.ZodObject, R extends z.ZodType> {
  name: string;
  action: string;
  title: string;
  description: string;
  input: In;
  /** The daemon's `result`, in full (the output schema declares every field). */
  result: R;
  /** The execute route; `{name}` segments come from the input fields of those names. */
  path: string;
  /** What executing does: always consequential. */
  effect: ConsequentialEffect;
  /** The read that shows the current state when the answer was lost (`executeCheck`). */
  check: OutcomeCheck;
  body?(input: z.output<In>): Json;
  target(input: z.output<In>): { type: string; id: string };
}

export function executeTool<In extends z.ZodObject, R extends z.ZodType>(
  spec: ExecuteSpec<In, R>,
): AnyTool {
  // The agent named the receipt and target itself; the answer is the daemon's, as sent.
  const output = z.object({
    changed: z.boolean(),
    replayed: z.boolean(),
    result: spec.result,
  });
  const route = post(
    spec.path,
    z.looseObject({ changed: z.boolean(), replayed: z.boolean(), result: spec.result }),
    spec.effect,
    spec.check,
  );
  const segments = segmentsFromInput(spec.name, route, spec.input);
  return defineTool({
    name: spec.name,
    title: spec.title,
    kind: "execute",
    capabilities: CAPS,
    description: spec.description,
    input: spec.input,
    output,
    routes: [route],
    async call(ctx: ToolContext, input) {
      const receiptId = input.receiptId as string;
      const body = spec.body?.(input) ?? { receiptId };
      const params = segments(input);
      // Before anything reaches the daemon: the person approves this receipt, or nothing is sent.
      const approval = await obtainApproval(ctx, {
        tool: spec.name,
        action: spec.action,
        target: spec.target(input),
        receiptId,
        request: { route, path: pathOf(route, params), body },
      });
      const data = await mutate(ctx, route, params, body, { approval });
      // Executed (or replayed): a later repeat needs no question, the daemon replays it.
      ctx.receipts.decide(receiptId, "approved");
      return { changed: data.changed, replayed: data.replayed, result: data.result };
    },
  });
}

/**
 * The execute of a prune preview: the receipt alone names what goes, the daemon re-checks each
 * candidate and answers the ids it deleted and the ones it skipped.
 */
export function pruneExecuteTool<R extends z.ZodObject>(spec: {
  name: string;
  action: string;
  title: string;
  description: string;
  /** The daemon's prune result (the dry run its preview showed, now done). */
  result: R;
  path: string;
  effect: ConsequentialEffect;
  check: OutcomeCheck;
  target(): { type: string; id: string };
}): AnyTool {
  return executeTool({
    name: spec.name,
    action: spec.action,
    title: spec.title,
    description: spec.description,
    input: z.strictObject({ receiptId: uuid() }),
    result: spec.result,
    path: spec.path,
    effect: spec.effect,
    check: spec.check,
    target: spec.target,
  });
}
