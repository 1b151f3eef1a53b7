/**
 * Shapes shared by many tools, defined once. Inputs reuse the anchor's limits; outputs type
 * the fields agents act on and keep rare nested detail loose.
 */
import { z } from "zod";

// ── Scalars ──────────────────────────────────────────────────────────────────────────────
export const uuid = () => z.uuid();
export const port = () => z.int().min(1).max(65535);
export const timestamp = () => z.iso.datetime({ offset: true });
export const name128 = () => z.string().min(1).max(128);
export const revision = () => z.string().regex(/^[a-f0-9]{64}$/);
export const handle = () => z.string().regex(/^[A-Za-z0-9_-]{43}$/);
export const pid = () => z.int().positive();
export const loose = () => z.record(z.string(), z.unknown());

// ── Inputs for collections ────────────────────────────────────────────────────────────────
export const PAGE_LIMIT_DEFAULT = 50;
export const PAGE_LIMIT_MAX = 200;

export const pageInput = {
  limit: z.int().min(1).max(PAGE_LIMIT_MAX).default(PAGE_LIMIT_DEFAULT),
  afterCursor: z.string().min(1).optional(),
};

/** `{items, page:{nextCursor?}}`: nextCursor is omitted on the last page. */
export function page<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    page: z.object({ nextCursor: z.string().optional() }),
  });
}

// ── Daemon records ────────────────────────────────────────────────────────────────────────
export const health = z.object({
  softwareVersion: z.string(),
  protocol: z.object({ minimum: z.int(), maximum: z.int() }),
  capabilities: z.array(z.string()),
  pid: z.int(),
  mode: z.string(),
});

export const settings = z.object({
  automaticPortRanges: z.array(z.object({ start: z.int(), end: z.int() })),
  excludedPorts: z.array(z.int()),
  leaseTtlMilliseconds: z.int(),
  ephemeralAssignmentTtlMilliseconds: z.int(),
  gracefulShutdownMilliseconds: z.int(),
  historyMaximumEvents: z.int(),
  diagnosticLogMaximumBytes: z.int(),
  diagnosticLogFiles: z.int(),
});
