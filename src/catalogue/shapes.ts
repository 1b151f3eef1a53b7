/**
 * Shapes shared by many tools, defined once: inputs, which reuse the anchor's limits and bound
 * every string, list and map (INPUT_BOUNDS), the scalars every record uses, pages, and custody's
 * fields. The daemon's records are in records.ts.
 */
import { z } from "zod";
import { INPUT_BOUNDS } from "../shared/input_bounds.ts";

// ── Input bounds ──────────────────────────────────────────────────────────────────────────
const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

/** A string of at most `max` characters. */
export const bounded = (max: number) => z.string().max(max);

/** A name as the protocol allows it (1–128 characters). */
export const name128 = () => z.string().min(1).max(INPUT_BOUNDS.name.max);

/** An exact-match filter on a name: a longer one could match nothing. */
export const nameFilter = () => bounded(INPUT_BOUNDS.name.max);

/**
 * A map from names to values, bounded in entries (`maxProperties` in the advertised schema)
 * and in key length.
 */
export function boundedRecord<V extends z.ZodType>(
  value: V,
  max: number = INPUT_BOUNDS.stackEntries.max,
) {
  return z.record(bounded(INPUT_BOUNDS.name.max), value)
    .refine((map) => Object.keys(map).length <= max, { message: `at most ${max} entries` })
    .meta({ maxProperties: max });
}

/** A time the caller sends: ISO 8601 with offset, bounded in length. */
export const timeInput = () => z.iso.datetime({ offset: true }).max(INPUT_BOUNDS.time.max);

// ── Scalars ──────────────────────────────────────────────────────────────────────────────
export const uuid = () => z.uuid();
export const port = () => z.int().min(1).max(65535);
export const timestamp = () => z.iso.datetime({ offset: true });
export const revision = () => z.string().regex(/^[a-f0-9]{64}$/);
export const handle = () => z.string().regex(/^[A-Za-z0-9_-]{43}$/);
export const pid = () => z.int().positive();
/**
 * A part the output schema declares in full (hosts that show output schemas type a model's
 * programs by them) but the bridge does not need: it never fails a call. The daemon's record
 * is kept as sent either way; the bridge checks only what it reads.
 */
export const declared = <T extends z.ZodType>(schema: T) => schema.catch(undefined as never);
/** A prune's age bound: at most ten years, in milliseconds. */
export const olderThanMilliseconds = () => z.int().min(0).max(315_576_000_000);

// ── Inputs for collections ────────────────────────────────────────────────────────────────
const PAGE_LIMIT_DEFAULT = 50;
const PAGE_LIMIT_MAX = 200;

export const pageInput = {
  limit: z.int().min(1).max(PAGE_LIMIT_MAX).default(PAGE_LIMIT_DEFAULT),
  afterCursor: z.string().min(1).max(INPUT_BOUNDS.cursor.max).optional(),
};

/** `{items, page:{itemCount, nextCursor?}}`: nextCursor is omitted on the last page. */
export function page<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    page: z.object({ itemCount: z.int(), nextCursor: z.string().optional() }),
  });
}

// ── Inputs shared by several tools ────────────────────────────────────────────────────────
/** A path no longer than the OS allows (`max` characters, and PATH_MAX in bytes). */
export const boundedPath = (required = false, max: number = INPUT_BOUNDS.path.max) =>
  (required ? z.string().min(1) : z.string()).max(max).refine(
    (p) => p.length * 3 <= INPUT_BOUNDS.path.max || utf8Bytes(p) <= INPUT_BOUNDS.path.max,
    { message: `must be at most ${INPUT_BOUNDS.path.max} bytes (the OS path limit)` },
  );

/**
 * Absolute path, validated without touching the filesystem (the bridge resolves no relative
 * path; the daemon canonicalises absolute ones).
 */
export const absolutePath = (required = false, max?: number) =>
  boundedPath(required, max).refine((p) => p.startsWith("/"), {
    message: "must be an absolute path",
  });

/**
 * A stack definition (version 1), typed so an agent can see its shape from the schema. Names
 * are only bounded here and defaults are left to the daemon, which validates and normalises
 * (publish/required default true, dependency endpoint "default"); this keeps the schema small.
 */
export const stackDefinitionInput = z.strictObject({
  version: z.literal(1),
  project: nameFilter(),
  components: boundedRecord(
    z.strictObject({
      endpoints: boundedRecord(
        z.strictObject({
          transport: z.literal("tcp").optional(),
          publish: z.boolean().optional(),
          required: z.boolean().optional(),
          allocation: z.strictObject({
            preferredPort: port().optional(),
            exactPort: port().optional(),
          }).optional(),
          docker: z.strictObject({ containerPort: port() }).optional(),
        }),
      ).optional(),
      dependencies: boundedRecord(
        z.strictObject({
          component: nameFilter(),
          endpoint: nameFilter().optional(),
          required: z.boolean().optional(),
        }),
      ).optional(),
      docker: z.strictObject({ service: nameFilter() }).optional(),
    }),
  ),
});

// ── Custody ───────────────────────────────────────────────────────────────────────────────
/** When this bridge stops holding (and renewing) a credential, and the latest it could. */
export const custodyTimes = {
  custodyExpiresAt: timestamp(),
  maximumCustodyExpiresAt: timestamp(),
};

/** A renewal that failed since the last call, surfaced instead of swallowed. */
export const renewalFailure = z.object({ code: z.string(), message: z.string(), at: timestamp() })
  .optional();

export const ack = z.object({ changed: z.boolean(), at: timestamp() });

export const abandonReason = () => z.enum(["address-in-use", "startup-error", "client-cancelled"]);
