/**
 * What this bridge process knows about the receipts its previews returned: action, target,
 * expiry, the question a person would be asked (or why none is), and the person's answer once
 * given. Only a receipt found here is ever executed, in every approval mode: a receipt issued
 * through another bridge or an earlier process is not, and a declined one never is. Also the declined
 * input questions (an acquire that would reclaim), so a "no" is not asked about again.
 * Bounded (oldest forgotten first), never persisted, holds no secrets.
 */

export type Decision = "approved" | "declined";

/** What executing this receipt will put to a person, decided from its preview. */
export type Asking =
  /** The questions the person is asked for this receipt, in order (one, or the parts). */
  | { kind: "question"; parts: readonly string[] }
  /** The preview said executing would change nothing: nobody is asked, nothing is sent. */
  | { kind: "nothing_to_do" }
  /** The preview said the daemon would refuse it: nobody is asked, nothing is sent. */
  | { kind: "preview_refused" }
  /** It names more than the most questions can show (`length` characters): refused where asked. */
  | { kind: "too_long_to_ask"; length: number };

export interface IssuedReceipt {
  receiptId: string;
  action: string;
  /** The target as the bridge sends it on execute (port string, lowercase claim id, …). */
  target: { type: string; id: string };
  expiresAt: string;
  asking: Asking;
  decision?: Decision;
}

/** What was handed to the host: a digest of every part's text, whose answers count for them. */
export interface AskedParts {
  digest: string;
}

interface OpenQuestion extends AskedParts {
  /** The receipt id, or an input question's subject. */
  receiptId: string;
  askedAt: number;
  deadline: number;
}

export class ReceiptBook {
  #receipts = new Map<string, IssuedReceipt>();
  #questions = new Map<string, OpenQuestion>();
  #asking = new Set<string>();
  #declinedInputs = new Set<string>();

  /**
   * `now`: the clock receipts expire and questions time out by (the process's own, or a
   * test's fake clock).
   */
  constructor(private readonly capacity = 500, readonly now: () => number = Date.now) {}

  remember(receipt: IssuedReceipt): void {
    const known = this.#receipts.get(receipt.receiptId);
    // The daemon returns the same receipt for a repeated idempotent preview: keep its answer.
    this.#receipts.delete(receipt.receiptId);
    this.#receipts.set(receipt.receiptId, { ...receipt, decision: known?.decision });
    trim(this.#receipts, this.capacity);
  }

  get(receiptId: string): IssuedReceipt | undefined {
    return this.#receipts.get(receiptId);
  }

  decide(receiptId: string, decision: Decision): void {
    const receipt = this.#receipts.get(receiptId);
    if (receipt && receipt.decision === undefined) receipt.decision = decision;
  }

  /** Remembers that the person said no to an input question. */
  declineInput(subject: string): void {
    this.#declinedInputs.add(subject);
    trim(this.#declinedInputs, this.capacity);
  }

  inputDeclined(subject: string): boolean {
    return this.#declinedInputs.has(subject);
  }

  /** Marks a question about `receiptId` as open; undefined if one already is. */
  startAsking(receiptId: string): (() => void) | undefined {
    if (this.#asking.has(receiptId)) return undefined;
    this.#asking.add(receiptId);
    return () => this.#asking.delete(receiptId);
  }

  /** A question handed to the host for a later retry; returns the unguessable state. */
  openQuestion(receiptId: string, deadline: number, asked: AskedParts): string {
    const state = crypto.randomUUID();
    this.#questions.set(state, { ...asked, receiptId, askedAt: this.now(), deadline });
    trim(this.#questions, this.capacity);
    return state;
  }

  /** The question a retry names, forgotten once read so its answer counts only once. */
  takeQuestion(state: string): OpenQuestion | undefined {
    const question = this.#questions.get(state);
    this.#questions.delete(state);
    return question;
  }
}

/** Forgets the oldest entries (insertion order) beyond `capacity`. */
function trim(entries: Map<string, unknown> | Set<string>, capacity: number): void {
  while (entries.size > capacity) entries.delete(entries.keys().next().value!);
}
