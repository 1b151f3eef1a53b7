// Reclaim and unsafe eviction. The simulator only ever signals a real process when it can
// prove the process belongs to a run it confirmed; injected listeners are "terminated" by
// removing them.
import type { Ctx } from "./core.ts";
import { type ListenerEvidence, listenerEvidence } from "./inventory.ts";
import { releaseRun } from "./lifecycle.ts";
import { sleep, uuid } from "./util.ts";

export type Policy = "never" | "graceful" | "force-after-grace";

interface ReclamationResult {
  operationId: string;
  operation: "reclaim" | "unsafe-eviction";
  port: number;
  policy: Policy;
  dryRun: boolean;
  outcome:
    | "already-free"
    | "would-terminate"
    | "terminated"
    | "refused"
    | "timeout"
    | "launcher-action-required";
  reason: string | null;
  launcherAction: null;
  targets: ListenerEvidence[];
  signals: { pid: number; signal: "SIGTERM" | "SIGKILL"; at: string }[];
}

/** The decision before any signal: shared by dry runs, previews and real reclaims. */
export function forecast(
  ctx: Ctx,
  port: number,
  policy: Policy,
  operation: "reclaim" | "unsafe-eviction",
): Pick<ReclamationResult, "outcome" | "reason" | "targets"> {
  const obs = ctx.reobserve();
  const run = ctx.state.activeRunOnPort(port) ?? null;
  const targets = listenerEvidence(obs, port, run);
  if (targets.length === 0) return { outcome: "already-free", reason: null, targets };
  const unobservable = targets.some((t) => t.process === null);
  if (unobservable) return { outcome: "refused", reason: "process-unobservable", targets };
  const unverified = targets.some((t) => !t.ownership.verified);
  const realForeign = targets.some((t) =>
    !t.ownership.verified && !ctx.core.evidence.fakeProcesses.has(t.pid)
  );
  if (operation === "reclaim" && unverified) {
    return { outcome: "refused", reason: "ownership-unverified", targets };
  }
  // Unsafe eviction ignores ownership upstream; the simulator still never kills strangers.
  if (operation === "unsafe-eviction" && realForeign) {
    return { outcome: "refused", reason: "simulator-will-not-signal-foreign-process", targets };
  }
  if (policy === "never") {
    return { outcome: "refused", reason: "replacement-policy-never", targets };
  }
  return { outcome: "would-terminate", reason: null, targets };
}

export async function reclaim(
  ctx: Ctx,
  port: number,
  policy: Policy,
  dryRun: boolean,
  operation: "reclaim" | "unsafe-eviction",
): Promise<ReclamationResult> {
  const operationId = uuid();
  const plan = forecast(ctx, port, policy, operation);
  const result: ReclamationResult = {
    operationId,
    operation,
    port,
    policy,
    dryRun,
    outcome: plan.outcome,
    reason: plan.reason,
    launcherAction: null,
    targets: plan.targets,
    signals: [],
  };
  if (dryRun) return result;
  ctx.event("reclamation.requested", "reclamation", operationId, { port, policy, operation });
  const run = ctx.state.activeRunOnPort(port);
  if (plan.outcome === "already-free") {
    if (run) releaseRun(ctx, run, { reclamationId: operationId });
  } else if (plan.outcome === "would-terminate") {
    signalAll(ctx, result, "SIGTERM");
    if (await waitFree(ctx, port)) {
      result.outcome = "terminated";
    } else if (policy === "force-after-grace") {
      signalAll(ctx, result, "SIGKILL");
      result.outcome = (await waitFree(ctx, port)) ? "terminated" : "timeout";
      if (result.outcome === "timeout") result.reason = "forced-termination-timeout";
    } else {
      result.outcome = "timeout";
      result.reason = "grace-period-expired";
    }
    const current = ctx.state.activeRunOnPort(port);
    if (result.outcome === "terminated" && current) {
      releaseRun(ctx, current, { reclamationId: operationId });
    }
  }
  ctx.event("reclamation.completed", "reclamation", operationId, {
    port,
    outcome: result.outcome,
    reason: result.reason,
  });
  return result;
}

function signalAll(
  ctx: Ctx,
  result: ReclamationResult,
  signal: "SIGTERM" | "SIGKILL",
): void {
  const fakes = ctx.core.evidence.fakeProcesses;
  for (const pid of new Set(result.targets.map((t) => t.pid))) {
    ctx.event("reclamation.signal-authorized", "reclamation", result.operationId, { pid, signal });
    if (fakes.has(pid)) {
      ctx.core.evidence.removeListener(result.port, pid);
    } else {
      try {
        Deno.kill(pid, signal);
      } catch {
        // It may already be gone; the wait below decides the outcome.
      }
    }
    result.signals.push({ pid, signal, at: new Date(ctx.core.clock.now()).toISOString() });
    ctx.event("reclamation.signal-sent", "reclamation", result.operationId, { pid, signal });
  }
}

/**
 * Polls until the port has no listener or the grace period runs out. The grace is measured on
 * the simulator's clock as its other deadlines are: real time by default; under
 * `lapses: "advance"` it runs out only when the test moves the clock past it.
 */
async function waitFree(ctx: Ctx, port: number): Promise<boolean> {
  const clock = ctx.core.clock;
  const deadline = clock.lapseNow() + ctx.settings.gracefulShutdownMilliseconds;
  while (true) {
    if (ctx.reobserve().onPort(port).length === 0) return true;
    if (clock.lapseNow() >= deadline) return false;
    await sleep(25);
  }
}
