import type { Clock } from "./clock.ts";
import { InvalidRenewalError, RenewalTimeoutError } from "./errors.ts";
import type { Group } from "./group.ts";
import type { LauncherRenewal, Outcome, Renewers } from "./group.ts";

/** The credentials one renewal attempt sent (snapshot; members may be settled meanwhile). */
export interface Sent {
  handle: string;
  leaseId: string;
  token: string;
}

interface RenewalCall<R extends LauncherRenewal> {
  clock: Clock;
  renewers: Renewers<R>;
  /** Aborted (as transient) when still unanswered after this long. */
  timeoutMs: number;
  /** When the soonest credential expires: how urgent this renewal is. */
  dueAt: number;
}

/**
 * Calls the renewer for the group's kind and applies new expiries to the members that are
 * still held. Never rejects. Aborting `controller` (timeout, settlement, close) settles it at
 * once even if the renewer ignores its signal.
 */
export async function performRenewal<R extends LauncherRenewal>(
  call: RenewalCall<R>,
  group: Group<R>,
  sent: Sent[],
  controller: AbortController,
): Promise<Outcome<R>> {
  const { renewers } = call;
  const signal = controller.signal;
  try {
    if (group.kind === "launcher") {
      const renewal = await bounded(
        call,
        controller,
        () => renewers.renewLauncher(group.id, sent[0].token, signal, call.dueAt),
      );
      if (!isTime(renewal?.deadlineAt) || !isTime(renewal.renewAfterMilliseconds)) {
        throw new InvalidRenewalError("deadlineAt/renewAfterMilliseconds must be numbers");
      }
      if (signal.aborted) return { ok: false, error: signal.reason };
      for (const entry of group.entries.values()) entry.expiresAt = renewal.deadlineAt;
      group.renewAfterMs = renewal.renewAfterMilliseconds;
      return { ok: true, launcher: renewal };
    }
    const expiries = new Map<string, number>();
    if (group.kind === "lease") {
      const { expiresAt } = await bounded(
        call,
        controller,
        () => renewers.renewLease(group.id, sent[0].token, signal, call.dueAt),
      );
      expiries.set(group.id, expiresAt);
    } else {
      const leases = sent.map(({ leaseId, token }) => ({ leaseId, token }));
      const answer = await bounded(
        call,
        controller,
        () => renewers.renewActivation(group.id, leases, signal, call.dueAt),
      );
      if (!Array.isArray(answer?.leases)) throw new InvalidRenewalError("leases must be a list");
      for (const { leaseId, expiresAt } of answer.leases) expiries.set(leaseId, expiresAt);
    }
    if ([...expiries.values()].some((t) => !isTime(t))) {
      throw new InvalidRenewalError("expiresAt must be a number");
    }
    if (signal.aborted) return { ok: false, error: signal.reason };
    // Only members still held are touched: a settled credential stays erased.
    for (const entry of group.entries.values()) {
      entry.expiresAt = expiries.get(entry.leaseId) ?? entry.expiresAt;
    }
    return { ok: true };
  } catch (error) {
    return { ok: false, error };
  }
}

const isTime = (value: unknown): value is number =>
  typeof value === "number" && Number.isFinite(value);

/** Races the renewer against abort and the renewal timeout; always clears its timer. */
function bounded<T, R extends LauncherRenewal>(
  call: RenewalCall<R>,
  controller: AbortController,
  start: () => Promise<T>,
): Promise<T> {
  const { signal } = controller;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const timer = call.clock.setTimeout(
      () => controller.abort(new RenewalTimeoutError(call.timeoutMs)),
      call.timeoutMs,
    );
    const finish = () => {
      call.clock.clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      finish();
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort);
    let pending: Promise<T>;
    try {
      pending = Promise.resolve(start());
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (value) => {
        finish();
        resolve(value);
      },
      (error) => {
        finish();
        reject(error);
      },
    );
  });
}
