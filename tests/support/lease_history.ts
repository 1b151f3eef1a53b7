/**
 * What the daemon's own history says about every lease: when it was granted and on which port,
 * which expiry was in force at any moment (each grant and renewal sets one), when it stopped
 * being held (its expiry in force when it lapsed, its abandonment, never once confirmed), and
 * whether any port was held by two leases at once.
 */
import type { Seeder } from "../e2e/seed.ts";

interface LeaseEvent {
  eventType: string;
  entityId: string;
  occurredAt: string;
  payload: { port?: number; expiresAt?: string };
}

export interface LeaseTimeline {
  leaseId: string;
  port: number;
  /** When the daemon answered the acquire (epoch ms). */
  grantedAt: number;
  /** Each expiry the daemon set, and when (the grant's first), in order. */
  expiries: { at: number; expiresAt: number }[];
  renewals: number;
  confirmedAt?: number;
  /** When it stopped being held: Infinity once confirmed (its run keeps the port). */
  end: number;
}

/** Whether the daemon held `lease` at `t`: granted, not settled, its expiry then still ahead. */
export function heldAt(lease: LeaseTimeline, t: number): boolean {
  if (t < lease.grantedAt) return false;
  if (lease.confirmedAt !== undefined && t >= lease.confirmedAt) return true;
  return t < lease.end && t < expiryAt(lease, t);
}

/** The expiry in force at `t`: the last one set at or before it. */
export function expiryAt(lease: LeaseTimeline, t: number): number {
  let expiry = -Infinity;
  for (const { at, expiresAt } of lease.expiries) if (at <= t) expiry = expiresAt;
  return expiry;
}

export interface LeaseHistory {
  leases: Map<string, LeaseTimeline>;
  /** Ports two leases held at once. */
  doubleHeld: number;
  renewals: number;
}

export async function leaseHistory(seed: Seeder): Promise<LeaseHistory> {
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

  const leases = new Map<string, LeaseTimeline>();
  let renewals = 0;
  for (const [leaseId, events] of byLease) {
    const timeline = timelineOf(leaseId, events);
    if (!timeline) continue;
    leases.set(leaseId, timeline);
    renewals += timeline.renewals;
  }
  return { leases, doubleHeld: portsHeldTwice([...leases.values()]), renewals };
}

function timelineOf(leaseId: string, events: LeaseEvent[]): LeaseTimeline | undefined {
  events.sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
  const granted = events.find((e) => e.eventType === "lease.acquired");
  if (!granted || granted.payload.port === undefined) return undefined;
  const grantedAt = Date.parse(granted.occurredAt);
  const expiries = [{ at: grantedAt, expiresAt: Date.parse(granted.payload.expiresAt ?? "") }];
  let renewals = 0;
  let confirmedAt: number | undefined;
  let abandonedAt: number | undefined;
  for (const event of events) {
    const at = Date.parse(event.occurredAt);
    if (event.eventType === "lease.renewed") {
      renewals++;
      expiries.push({ at, expiresAt: Date.parse(event.payload.expiresAt ?? "") });
    } else if (event.eventType === "lease.confirmed") {
      confirmedAt ??= at;
    } else if (event.eventType === "lease.abandoned") {
      abandonedAt ??= at;
    }
  }
  // The daemon refuses a renewal or confirm past the expiry in force, so the first expiry that
  // passed before the next renewal (or the settlement) is when the lease lapsed.
  let end = Infinity;
  for (const [i, { expiresAt }] of expiries.entries()) {
    const next = expiries[i + 1]?.at ?? Math.min(confirmedAt ?? Infinity, abandonedAt ?? Infinity);
    if (next >= expiresAt) {
      end = expiresAt;
      break;
    }
  }
  if (abandonedAt !== undefined) end = Math.min(end, abandonedAt);
  return { leaseId, port: granted.payload.port, grantedAt, expiries, renewals, confirmedAt, end };
}

function portsHeldTwice(leases: LeaseTimeline[]): number {
  const byPort = new Map<number, LeaseTimeline[]>();
  for (const lease of leases) {
    const list = byPort.get(lease.port) ?? [];
    list.push(lease);
    byPort.set(lease.port, list);
  }
  let twice = 0;
  for (const list of byPort.values()) {
    list.sort((a, b) => a.grantedAt - b.grantedAt);
    let reach = -Infinity;
    for (const lease of list) {
      // A lease granted already expired was never held (from ≥ end): it takes no room.
      if (lease.end <= lease.grantedAt) continue;
      if (lease.grantedAt < reach) {
        twice++;
        break;
      }
      reach = Math.max(reach, lease.end);
    }
  }
  return twice;
}
