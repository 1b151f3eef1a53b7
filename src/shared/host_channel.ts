/**
 * How one tool call can reach the person at the host (MCP elicitation), as the transport
 * sees it, and the input-required answer of the 2026-07-28 era. Kept free of heavy imports:
 * the transport and the catalogue load it at start-up.
 */

/** The key of our (first) embedded question in a 2026-07-28 input-required round. */
export const APPROVAL_KEY = "approval";

/** The key of part `index` (from 0) of a question asked in parts: `approval`, `approval_2`, … */
export function approvalKey(index: number): string {
  return index === 0 ? APPROVAL_KEY : `${APPROVAL_KEY}_${index + 1}`;
}

/** A form-mode elicitation: the message and a single boolean, nothing else to type. */
export interface ApprovalForm {
  message: string;
  requestedSchema: {
    type: "object";
    properties: Record<
      string,
      { type: "boolean"; title: string; description: string; default: boolean }
    >;
    required: string[];
  };
}

/** How the current request can reach the person at the host; built by the transport. */
export interface HostChannel {
  /** The client declared it can put a form question to its user. */
  canAsk: boolean;
  /** 2025 era: sends `elicitation/create` now and waits; rejects with `HostAskError`. */
  ask?(form: ApprovalForm, options: { timeoutMs: number; signal: AbortSignal }): Promise<unknown>;
  /** 2026-07-28 era: what a retried call carried back (echoed state and the answers). */
  retried?: { state?: string; responses?: Record<string, unknown> };
}

/** Why `ask` got no answer: the wait ran out, or the host failed to put the question. */
export class HostAskError extends Error {
  override name = "HostAskError";
  constructor(readonly timedOut: boolean, message: string) {
    super(message);
  }
}

/**
 * Thrown on the 2026-07-28 path when the person must be asked: the catalogue answers the call
 * with an input-required result, and the host retries it carrying the answers. A question in
 * parts goes in one round, a form per part (`approvalKey`): hosts cap the rounds of a call.
 */
export class AnswerNeeded extends Error {
  override name = "AnswerNeeded";
  constructor(readonly forms: readonly ApprovalForm[], readonly state: string) {
    super("a person's answer is needed");
  }

  result(): {
    resultType: "input_required";
    inputRequests: Record<string, { method: "elicitation/create"; params: ApprovalForm }>;
    requestState: string;
  } {
    return {
      resultType: "input_required",
      inputRequests: Object.fromEntries(
        this.forms.map((form, i) => [approvalKey(i), {
          method: "elicitation/create" as const,
          params: form,
        }]),
      ),
      requestState: this.state,
    };
  }
}
