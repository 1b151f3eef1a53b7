/**
 * Changes whose caller stopped waiting after the daemon had them: the host cancelled the call,
 * or the call's bound ran out. The daemon acts on such a change all the same, so the bridge
 * keeps waiting for its answer (http.ts keeps the request open) and then:
 *
 * - a repeat of the same change (same route, path and body) that comes while the answer is still
 *   on its way takes that answer as its own instead of sending the change again;
 * - otherwise what the answer created is given back (the route's `giveBack`: a granted lease
 *   abandoned as `client-cancelled`, its token dropped and never held or renewed), and the
 *   answer is reported (ids and codes only) for the log.
 */
import { BridgeError } from "../shared/errors.ts";
import type { GiveBackSend, Route } from "./routes.ts";

/** What became of an answer nobody was waiting for. */
export interface LateEvent {
  /** `METHOD path` of the route. */
  route: string;
  /**
   * `given-back`: what it created was given back (`what` says what); `taken`: a repeat of the
   * same change took it; `answered`: it created nothing to give back; `failed`: no answer came
   * (`code`), or giving back failed (`what` says what was tried).
   */
  outcome: "given-back" | "taken" | "answered" | "failed";
  what?: string;
  code?: string;
}

/** One change as the client hands it over. */
interface Change<T> {
  /** The same change has the same key: route, concrete path and body. */
  key: string;
  route: Route;
  /** The caller's: it ends the caller's wait, never the change once sent. */
  signal?: AbortSignal;
  /**
   * Sends the change; `keep` receives its answer to come if the caller stops waiting once the
   * daemon has it.
   */
  send(keep: (answer: Promise<T>) => void): Promise<T>;
  /** The error of a caller that stops waiting for a taken-over answer (as `send` would give). */
  gaveUp(signal: AbortSignal): BridgeError;
  /** Told of the answer when nobody waited for it (the caller's own follow-up, e.g. custody). */
  whenLate?(answer: T): void;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Orphan {
  /** A repeat waiting for this answer, if one took it over. */
  taker?: (settled: Settled) => void;
}

export class LateAnswers {
  /** Answers on their way that no caller waits for (or a repeat took over), by change key. */
  readonly #orphans = new Map<string, Orphan[]>();

  constructor(
    /** Sends a give-back's requests. */
    private readonly send: GiveBackSend,
    private readonly report: (event: LateEvent) => void = () => {},
  ) {}

  /** Answers still on their way that no caller waits for. */
  get pending(): number {
    let count = 0;
    for (const orphans of this.#orphans.values()) {
      count += orphans.filter((orphan) => !orphan.taker).length;
    }
    return count;
  }

  /** Gives back what `answer` to `route` created, which its caller will not read (reported). */
  giveBack(route: Route, answer: unknown): Promise<void> {
    return this.#settle({ route }, { ok: true, value: answer });
  }

  /** Sends `change`, or takes over the answer to the same change already on its way. */
  async run<T>(change: Change<T>): Promise<T> {
    const waiting = this.#orphans.get(change.key)?.find((orphan) => !orphan.taker);
    if (waiting) return await this.#take(waiting, change) as T;
    return await change.send((answer) => this.#adopt(change, answer));
  }

  #adopt<T>(change: Change<T>, answer: Promise<T>): void {
    const orphan: Orphan = {};
    const list = this.#orphans.get(change.key) ?? [];
    list.push(orphan);
    this.#orphans.set(change.key, list);
    const settle = (settled: Settled) => {
      const left = (this.#orphans.get(change.key) ?? []).filter((o) => o !== orphan);
      if (left.length > 0) this.#orphans.set(change.key, left);
      else this.#orphans.delete(change.key);
      if (orphan.taker) {
        this.report({ route: change.route.route, outcome: "taken" });
        orphan.taker(settled);
      } else {
        this.#settle(change, settled);
      }
    };
    answer.then((value) => settle({ ok: true, value }), (error) => settle({ ok: false, error }));
  }

  /** Waits for `orphan`'s answer as `change`'s own, until `change`'s caller stops waiting. */
  #take(orphan: Orphan, change: Change<unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const signal = change.signal;
      const onAbort = () => {
        orphan.taker = undefined;
        reject(change.gaveUp(signal!));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      orphan.taker = (settled) => {
        signal?.removeEventListener("abort", onAbort);
        if (settled.ok) resolve(settled.value);
        else reject(settled.error);
      };
    });
  }

  /** An answer nobody took: give back what it created, and report it. */
  async #settle<T>(
    change: Pick<Change<T>, "route" | "whenLate">,
    settled: Settled,
  ): Promise<void> {
    const route = change.route.route;
    if (!settled.ok) {
      const error = settled.error;
      this.report({
        route,
        outcome: "failed",
        code: error instanceof BridgeError ? error.code : "",
      });
      return;
    }
    const answer = settled.value as T;
    try {
      change.whenLate?.(answer);
    } catch {
      // The caller's follow-up is its own; what the answer created is still given back.
    }
    const giveBack = change.route.giveBack;
    if (!giveBack) {
      this.report({ route, outcome: "answered" });
      return;
    }
    try {
      const what = await giveBack.undo(answer, this.send);
      this.report({ route, outcome: "given-back", what });
    } catch (error) {
      this.report({
        route,
        outcome: "failed",
        what: `giving back: ${giveBack.what}`,
        code: error instanceof BridgeError ? error.code : String(error),
      });
    }
  }
}
