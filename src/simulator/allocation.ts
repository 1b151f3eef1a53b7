// Port candidate selection shared by acquire, reassign and prepare.
import type { Ctx } from "./core.ts";
import { osEphemeralRange } from "./evidence.ts";

type Blocker = "port_assigned" | "port_pending" | "live_listener";

/** Automatic-range ports that are neither excluded nor in the OS ephemeral range. */
export function* automaticPorts(ctx: Ctx): Generator<number> {
  const excluded = new Set(ctx.settings.excludedPorts);
  const os = osEphemeralRange();
  for (const range of ctx.settings.automaticPortRanges) {
    for (let port = range.start; port <= range.end; port++) {
      if (excluded.has(port) || (port >= os.start && port <= os.end)) continue;
      yield port;
    }
  }
}

/**
 * `first`, then the automatic ports, one at a time: a search usually ends at the first few, so
 * the range (tens of thousands of ports) is never spread into an array.
 */
export function* candidatePorts(ctx: Ctx, first: readonly number[]): Generator<number> {
  yield* first;
  yield* automaticPorts(ctx);
}

/** Why `port` cannot go to `claimId` right now, or null when it is free for it. */
export function blockerFor(
  ctx: Ctx,
  port: number,
  claimId: string | null,
  opts: { ownListenerOk?: boolean } = {},
): Blocker | null {
  const holder = ctx.state.claimAssignedTo(port, ctx.lapseAt);
  if (holder && holder.id !== claimId) return "port_assigned";
  const run = ctx.state.activeRunOnPort(port);
  if (run && run.claimId !== claimId) return "port_assigned";
  const lease = ctx.state.livePendingLeaseOnPort(port, ctx.lapseAt);
  if (lease && lease.claimId !== claimId) return "port_pending";
  if (ctx.observe().onPort(port).length > 0) {
    if (opts.ownListenerOk && run && run.claimId === claimId) return null;
    return "live_listener";
  }
  return null;
}
