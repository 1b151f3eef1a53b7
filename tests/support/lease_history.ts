/**
 * What the daemon's own history says about a set of leases: whether each stayed live from its
 * acquisition to its confirmation (every renewal and the confirm landed before the expiry then
 * in force, and none was swept as expired), and whether any port was held by two leases at once.
 */
import type { Seeder } from "../e2e/seed.ts";

export interface LeaseFindings {
  /** Leases that lapsed: a renewal or confirm after the expiry in force, or swept expired. */
  lapses: number;
  lapsedLeases: string[];
  /**
   * Ports two leases held at once. The agents' leases are held from acquisition on: each agent
   * keeps its port (pending, then as a confirmed run) until the test ends; other leases hold
   * theirs until they were confirmed, abandoned or expired.
   */
  doubleHeld: number;
  renewals: number;
  confirmed: number;
  /** The shortest acquisition-to-confirmation time among the confirmed leases (ms). */
  shortestHoldMs: number;
}

interface LeaseEvent {
  eventType: string;
  entityId: string;
  occurredAt: string;
  payload: { port?: number; expiresAt?: string };
}

export async function leaseHistory(seed: Seeder, ours: readonly string[]): Promise<LeaseFindings> {
  const byLease = new Map<string, LeaseEvent[]>();
  let cursor: string | undefined;
  do {
    const query = `limit=200&entityType=lease${cursor ? `&afterCursor=${cursor}` : ""}`;
    const page = await seed.get(`/v1/history?${query}`) as {
      items: LeaseEvent[];
      page: { nextCursor: string | null };
    };
    for (const event of page.items) {
      const list = byLease.get(event.entityId) ?? [];
      list.push(event);
      byLease.set(event.entityId, list);
    }
    cursor = page.page.nextCursor ?? undefined;
  } while (cursor);

  const mine = new Set(ours);
  const lapsedLeases: string[] = [];
  const holds: { port: number; lease: string; from: number; to: number }[] = [];
  let renewals = 0;
  let confirmed = 0;
  let shortestHoldMs = Infinity;
  const now = Date.now();
  for (const [lease, events] of byLease) {
    events.sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
    const acquired = events.find((e) => e.eventType === "lease.acquired");
    if (!acquired || acquired.payload.port === undefined) continue;
    const from = Date.parse(acquired.occurredAt);
    let expiry = Date.parse(acquired.payload.expiresAt ?? "");
    let lapsed = false;
    let end = Infinity;
    for (const event of events) {
      const at = Date.parse(event.occurredAt);
      if (event.eventType === "lease.renewed") {
        renewals++;
        if (at >= expiry) lapsed = true;
        expiry = Date.parse(event.payload.expiresAt ?? "");
      } else if (event.eventType === "lease.confirmed") {
        confirmed++;
        if (at >= expiry) lapsed = true;
        shortestHoldMs = Math.min(shortestHoldMs, at - from);
      } else if (event.eventType === "lease.expired") {
        lapsed = true;
        end = Math.min(end, expiry);
      } else if (event.eventType === "lease.abandoned") {
        end = Math.min(end, at);
      }
    }
    const settled = events.some((e) =>
      e.eventType === "lease.confirmed" || e.eventType === "lease.abandoned"
    );
    if (!settled && expiry <= now) lapsed = true; // expired, not yet swept
    if (mine.has(lease)) {
      if (lapsed) lapsedLeases.push(lease);
      end = Infinity; // its agent holds the port until the test ends
    } else if (!settled) {
      end = Math.min(end, expiry);
    }
    holds.push({ port: acquired.payload.port, lease, from, to: end });
  }
  return {
    lapses: lapsedLeases.length,
    lapsedLeases,
    doubleHeld: portsHeldTwice(holds),
    renewals,
    confirmed,
    shortestHoldMs,
  };
}

function portsHeldTwice(holds: { port: number; from: number; to: number }[]): number {
  const byPort = new Map<number, { from: number; to: number }[]>();
  for (const hold of holds) {
    const list = byPort.get(hold.port) ?? [];
    list.push(hold);
    byPort.set(hold.port, list);
  }
  let twice = 0;
  for (const list of byPort.values()) {
    list.sort((a, b) => a.from - b.from);
    let reach = -Infinity;
    for (const hold of list) {
      if (hold.from < reach) {
        twice++;
        break;
      }
      reach = Math.max(reach, hold.to);
    }
  }
  return twice;
}
