/**
 * The gate on `portreeve_lease_acquire`'s reclaim policies. With `graceful` or
 * `force-after-grace` the daemon reclaims a claim that has a confirmed run before leasing it:
 * it signals that run's processes — the effect of port_reclaim_execute, without a receipt.
 * So such an acquire goes through the approval module like an execute:
 *
 * - `--approval off`: sent as given (the reference bridge's behaviour);
 * - a host that cannot ask: refused before anything is sent (`required`, the default:
 *   `portreeve_approval_unavailable` naming the opt-in; `auto`: sent to the receipt pair,
 *   where the host's own tool prompt stands in);
 * - otherwise the claim's run and listeners are read, and the person is asked, naming the
 *   claim, the port and every pid the daemon reports; a yes is checked against a second
 *   read just before sending. When the claim has no confirmed run the policy changes
 *   nothing, so `never` is sent instead: a run confirmed meanwhile is then refused by the
 *   daemon (a conflict), never signalled unasked.
 */
import { z } from "zod";
import type { ToolContext } from "../context.ts";
import { get, pathOf } from "../routes.ts";
import { effectOf } from "../../daemon/effects.ts";
import type { ApprovalProof } from "../../daemon/gate.ts";
import {
  cancelledWhileAsking,
  hostFailure,
  type InputQuestion,
  obtainInputApproval,
  sha256Hex,
} from "../approval.ts";
import {
  counted,
  field,
  MAX_PARTS,
  processSection,
  type Question,
  question,
  QUESTION_MAX,
  type Section,
  words,
} from "../question.ts";
import { BridgeError, Codes } from "../../shared/errors.ts";
import { canonicalJson } from "../memory.ts";
import { read } from "../daemon_calls.ts";
import type { Route } from "../routes.ts";

/** What the gate reads of the inventory: the claim's run and who listens on its port. */
export const inventoryLookup = get(
  "/v1/ports",
  z.array(z.looseObject({
    port: z.int(),
    claim: z.looseObject({ id: z.string() }).nullable(),
    run: z.looseObject({ id: z.string(), claimId: z.string(), state: z.string() }).nullable(),
    listeners: z.array(z.looseObject({ pid: z.int(), command: z.string().nullable() })),
  })),
);

/** The acquire body as the tool sends it. */
export interface AcquireBody extends Record<string, unknown> {
  claim:
    & { project: string; workspaceRoot: string; component: string; endpoint: string }
    & Record<
      string,
      unknown
    >;
  allocation: { replacementPolicy: string } & Record<string, unknown>;
}

/** What the daemon would reclaim first. */
interface Reclaimable {
  runId: string;
  port: number;
  listeners: { pid: number; command: string | null }[];
}

/** The body to send and, when it is consequential, the proof that lets it through. */
export async function gateAcquire(
  ctx: ToolContext,
  route: Route,
  body: AcquireBody,
): Promise<{ body: AcquireBody; approval?: ApprovalProof }> {
  if (effectOf(route.effect, body).level !== "consequential") return { body };
  const policy = body.allocation.replacementPolicy;
  let seen: Reclaimable | undefined;
  const approval = await obtainInputApproval(ctx, {
    request: { route, path: pathOf(route), body },
    prepare: async () => {
      seen = await reclaimable(ctx, body);
      return seen && await ask(body, seen);
    },
    refusals: acquireRefusals(policy),
  });
  if (!approval) {
    // Nothing to reclaim now: the policy would change nothing, so nothing needs approving.
    return { body: { ...body, allocation: { ...body.allocation, replacementPolicy: "never" } } };
  }
  if (seen) {
    // The person approved what was read before asking; anything else is asked about anew.
    const now = await reclaimable(ctx, body);
    if (fingerprint(now) !== fingerprint(seen)) throw changedMeanwhile(policy);
  }
  return { body, approval };
}

/** The claim's confirmed run, if any, read from the inventory filtered to the claim. */
async function reclaimable(ctx: ToolContext, body: AcquireBody): Promise<Reclaimable | undefined> {
  const { project, workspaceRoot, component, endpoint } = body.claim;
  const entries = await read(ctx, inventoryLookup, {}, {
    project,
    workspace: workspaceRoot,
    component,
    endpoint,
  });
  for (const entry of entries) {
    const run = entry.run;
    if (run && run.state === "confirmed" && entry.claim && run.claimId === entry.claim.id) {
      return {
        runId: run.id,
        port: entry.port,
        listeners: entry.listeners.map((l) => ({ pid: l.pid, command: l.command })),
      };
    }
  }
  return undefined;
}

function fingerprint(target: Reclaimable | undefined): string {
  if (!target) return "none";
  const pids = target.listeners.map((l) => l.pid).sort((a, b) => a - b);
  return JSON.stringify([target.runId, target.port, pids]);
}

async function ask(body: AcquireBody, target: Reclaimable): Promise<InputQuestion> {
  const subject = await sha256Hex(canonicalJson({ body, target: fingerprint(target) }));
  return { subject: `acquire:${subject}`, question: acquireQuestion(body, target) };
}

/**
 * The question about an acquire that would reclaim `target` first: the claim, its run and every
 * process the daemon would signal, each value on a line of its own.
 */
function acquireQuestion(body: AcquireBody, target: Reclaimable): Question {
  const { project, workspaceRoot, component, endpoint } = body.claim;
  const force = body.allocation.replacementPolicy === "force-after-grace";
  const n = target.listeners.length;
  const processes = counted(n, words`process`, words`processes`);
  const claim: Section = {
    name: { one: "the claim" },
    heading: words`The claim`,
    lines: [
      field(words`project`, project),
      field(words`component`, component),
      field(words`endpoint`, endpoint),
      field(words`workspace`, workspaceRoot),
    ],
  };
  const run: Section = { name: { one: "the run" }, lines: [field(words`Run id`, target.runId)] };
  return question({
    lead: [
      force
        ? words`The agent asks to lease a claim with replacementPolicy force-after-grace.`
        : words`The agent asks to lease a claim with replacementPolicy graceful.`,
      n === 0
        ? words`The claim's confirmed run holds port ${target.port}, where nothing listens now; the daemon would release that run (and signal whatever listens there by then).`
        : force
        ? words`The claim's confirmed run holds port ${target.port}; to lease it, the daemon would first send SIGTERM, then SIGKILL after the grace period, to ${processes}, listed below, and release that run.`
        : words`The claim's confirmed run holds port ${target.port}; to lease it, the daemon would first send SIGTERM to ${processes}, listed below, and release that run.`,
    ],
    sections: [
      claim,
      run,
      ...target.listeners.map((l, i) => processSection(l.pid, l.command, i + 1, n)),
    ],
    close: [
      words`If you do not approve, those processes keep running; nothing has been sent yet.`,
    ],
  });
}

const FIELD = "allocation.replacementPolicy";

/**
 * The acquire gate's refusals. Their reasons are the gate's own (`reclaim_…`), so each has the
 * next step that fits an acquire (error_codes.ts), not an execute's.
 */
export function acquireRefusals(policy: string) {
  const details = (reason: string) => ({ field: FIELD, value: policy, reason });
  return {
    hostCannotAsk: (mode: "required" | "auto") =>
      mode === "required"
        ? new BridgeError(
          Codes.approvalUnavailable,
          `replacementPolicy ${policy} lets the daemon signal the processes of the claim's confirmed run, which needs the user's approval, and this host cannot ask them; nothing was sent to the daemon.`,
          false,
          details("reclaim_host_cannot_ask"),
        )
        : new BridgeError(
          Codes.approvalNeedsReceipt,
          `replacementPolicy ${policy} lets the daemon signal the processes of the claim's confirmed run, which needs the user's approval, and this host cannot ask them; nothing was sent to the daemon.`,
          false,
          details("host_cannot_ask"),
        ),
    tooLongToAsk: (length: number) =>
      new BridgeError(
        Codes.approvalUnavailable,
        `Reclaiming the claim's run (replacementPolicy ${policy}) touches more than ${MAX_PARTS} questions can show the user (${
          length.toLocaleString("en-US")
        } characters; at most ${
          QUESTION_MAX.toLocaleString("en-US")
        } each), so nobody was asked; nothing was sent to the daemon.`,
        false,
        details("reclaim_too_long_to_ask"),
      ),
    declined: (answered?: string, part?: { index: number; of: number }) =>
      new BridgeError(
        Codes.approvalDeclined,
        `${
          answered === undefined
            ? "Reclaiming the claim's run was declined earlier"
            : `The host answered "${answered}" to ${
              part ? `part ${part.index} of ${part.of} of the question about ` : ""
            }reclaiming the claim's run`
        } (replacementPolicy ${policy}); nothing was sent to the daemon and its processes keep running.`,
        false,
        { ...details("reclaim_declined"), answer: answered ?? "declined_earlier" },
      ),
    busy: () =>
      new BridgeError(
        Codes.approvalUnavailable,
        "The user is already being asked about this same acquire; nothing was sent to the daemon.",
        true,
        details("reclaim_question_open"),
      ),
    cancelled: () => cancelledWhileAsking(details("reclaim_cancelled")),
    noAnswer: (waitedMs: number, cause: unknown) => {
      const failed = hostFailure(cause);
      return new BridgeError(
        Codes.approvalUnavailable,
        `${
          failed === undefined
            ? `No answer from the user within ${Math.round(waitedMs / 1000)} s`
            : `The host could not ask the user (${failed})`
        }; nothing was sent to the daemon.`,
        true,
        details(failed === undefined ? "reclaim_no_answer" : "reclaim_host_failed"),
      );
    },
  };
}

export function changedMeanwhile(policy: string): BridgeError {
  return new BridgeError(
    Codes.approvalUnavailable,
    "The claim's run or its processes changed while the user was being asked; nothing was sent to the daemon.",
    true,
    { field: FIELD, value: policy, reason: "reclaim_evidence_changed" },
  );
}
