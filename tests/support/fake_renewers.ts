import type { Clock } from "../../src/custody/clock.ts";
import type { CredentialKind, LauncherRenewal, Renewers } from "../../src/custody/mod.ts";

/** One call a FakeRenewers received (tests only: it records the secrets it was sent). */
export interface RenewCall {
  kind: CredentialKind;
  id: string;
  secrets: string[];
  at: number;
  signal: AbortSignal;
  /** The expiry the renewal was due by, as custody passed it. */
  dueAt: number;
}

/** A renewal error shaped like the daemon client's (`code`, `retryable`). */
export class FakeRenewalError extends Error {
  constructor(
    readonly code: string,
    readonly retryable: boolean,
    message: string = code,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * Scriptable renewers for tests: answer like the daemon (new expiry = now + TTL, launcher
 * deadline = now + 30 s), fail on demand, or hang until released or aborted.
 */
export class FakeRenewers implements Renewers {
  readonly calls: RenewCall[] = [];
  leaseTtlMs = 15_000;
  launcherDeadlineMs = 30_000;
  renewAfterMs = 10_000;
  readonly #failures: unknown[] = [];
  #gate?: Promise<void>;

  constructor(readonly clock: Clock) {}

  /** The next `times` calls reject with `error`. */
  failNext(error: unknown, times = 1): void {
    for (let i = 0; i < times; i++) this.#failures.push(error);
  }

  /** Calls made from now on hang until the returned function is called (or they are aborted). */
  block(): () => void {
    let release!: () => void;
    this.#gate = new Promise<void>((resolve) => release = resolve);
    return () => {
      this.#gate = undefined;
      release();
    };
  }

  callsOf(kind: CredentialKind): RenewCall[] {
    return this.calls.filter((c) => c.kind === kind);
  }

  async renewLease(
    leaseId: string,
    token: string,
    signal: AbortSignal,
    dueAt: number,
  ): Promise<{ expiresAt: number }> {
    await this.#enter("lease", leaseId, [token], signal, dueAt);
    return { expiresAt: this.clock.now() + this.leaseTtlMs };
  }

  async renewActivation(
    activationId: string,
    leases: { leaseId: string; token: string }[],
    signal: AbortSignal,
    dueAt: number,
  ): Promise<{ leases: { leaseId: string; expiresAt: number }[] }> {
    await this.#enter("activation", activationId, leases.map((l) => l.token), signal, dueAt);
    const expiresAt = this.clock.now() + this.leaseTtlMs;
    return { leases: leases.map(({ leaseId }) => ({ leaseId, expiresAt })) };
  }

  async renewLauncher(
    operationId: string,
    credential: string,
    signal: AbortSignal,
    dueAt: number,
  ): Promise<LauncherRenewal> {
    await this.#enter("launcher", operationId, [credential], signal, dueAt);
    return {
      deadlineAt: this.clock.now() + this.launcherDeadlineMs,
      renewAfterMilliseconds: this.renewAfterMs,
    };
  }

  async #enter(
    kind: CredentialKind,
    id: string,
    secrets: string[],
    signal: AbortSignal,
    dueAt: number,
  ) {
    this.calls.push({ kind, id, secrets, at: this.clock.now(), signal, dueAt });
    const gate = this.#gate;
    if (gate) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        gate.then(() => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        });
      });
    }
    if (this.#failures.length > 0) throw this.#failures.shift();
  }
}
