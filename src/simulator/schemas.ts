// Zod schemas shared by several route families (wire formats from the protocol fact sheet).
import { z } from "zod";

export const uuidSchema = z.uuid();
export const portSchema = z.number().int().min(1).max(65535);
export const tokenSchema = z.string().min(43).max(128).regex(/^[A-Za-z0-9_-]+$/);
export const hex64Schema = z.string().regex(/^[a-f0-9]{64}$/);
export const tsSchema = z.iso.datetime({ offset: true });

/** Stack and endpoint names are rejected, not trimmed, when padded with whitespace. */
export const name128 = z.string().min(1).max(128).refine((s) => s.trim() === s, {
  message: "Names must not start or end with whitespace",
});
/** Claim identity names are trimmed by the server before the length check. */
export const ident128 = z.string().trim().min(1).max(128);

const originSchema = z.strictObject({
  kind: z.enum(["library", "cli", "desktop", "mcp"]),
  runId: uuidSchema.optional(),
  label: z.string().trim().min(1).max(128).optional(),
});
export type Origin = z.output<typeof originSchema>;

const clientSchema = z.object({
  softwareVersion: z.string().min(1),
  protocol: z.object({
    minimum: z.number().int().positive(),
    maximum: z.number().int().positive(),
  }).refine((p) => p.minimum <= p.maximum, { message: "minimum must not exceed maximum" }),
  requiredCapabilities: z.array(z.string().min(1)).default([]),
  origin: originSchema.optional(),
});
type ClientBlock = z.output<typeof clientSchema>;

/** Every POST body: a JSON object whose `client` block is valid; other keys pass through. */
export const postEnvelopeSchema = z.looseObject({ client: clientSchema });

const range = z.strictObject({ start: portSchema, end: portSchema }).refine(
  (r) => r.start <= r.end,
  {
    message: "start must not exceed end",
  },
);

const settingsShape = {
  automaticPortRanges: z.array(range).min(1).max(16),
  excludedPorts: z.array(portSchema).max(4096),
  leaseTtlMilliseconds: z.number().int().min(1_000).max(120_000),
  ephemeralAssignmentTtlMilliseconds: z.number().int().min(1_000).max(86_400_000),
  gracefulShutdownMilliseconds: z.number().int().min(100).max(60_000),
  historyMaximumEvents: z.number().int().min(100).max(100_000),
  diagnosticLogMaximumBytes: z.number().int().min(16_384).max(104_857_600),
  diagnosticLogFiles: z.number().int().min(1).max(16),
};

export const settingsSchema = z.strictObject(settingsShape).superRefine((s, ctx) => {
  if (new Set(s.excludedPorts).size !== s.excludedPorts.length) {
    ctx.addIssue({ code: "custom", path: ["excludedPorts"], message: "Ports must be unique" });
  }
  const sorted = [...s.automaticPortRanges].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].start <= sorted[i - 1].end) {
      ctx.addIssue({
        code: "custom",
        path: ["automaticPortRanges"],
        message: "Port ranges must not overlap",
      });
      break;
    }
  }
});
export type Settings = z.output<typeof settingsSchema>;

const settingsUpdateSchema = z.strictObject(settingsShape).partial().refine(
  (u) => Object.keys(u).length > 0,
  {
    message: "At least one setting must be updated",
    // An unknown key alone reports just "Unrecognized key", not an empty update as well.
    when: (payload) => payload.issues.length === 0,
  },
);

/** POST /v1/config and the settings preview: `{ updates }` (unknown setting keys rejected). */
export const settingsBodySchema = z.object({ updates: settingsUpdateSchema });

export const DEFAULT_SETTINGS: Settings = {
  automaticPortRanges: [{ start: 10240, end: 49151 }],
  excludedPorts: [],
  leaseTtlMilliseconds: 15_000,
  ephemeralAssignmentTtlMilliseconds: 3_600_000,
  gracefulShutdownMilliseconds: 5_000,
  historyMaximumEvents: 10_000,
  diagnosticLogMaximumBytes: 1_048_576,
  diagnosticLogFiles: 3,
};

export const STATIC_CAPABILITIES = [
  "claims-v1",
  "two-phase-allocation-v1",
  "listener-evidence-v1",
  "reclamation-v1",
  "administration-v1",
  "observability-v1",
  "lifecycle-control-v1",
  "stack-definitions-v1",
  "stack-activations-v1",
  "stack-discovery-v1",
  "launcher-operations-v1",
  "mcp-foundations-v1",
] as const;

export const abandonReasonSchema = z.enum(["address-in-use", "startup-error", "client-cancelled"]);
export const policySchema = z.enum(["never", "graceful", "force-after-grace"]);

/** Query-string booleans are the exact words true/false. */
export const queryBoolean = z.enum(["true", "false"]).transform((v) => v === "true");
export const queryPort = z.string().regex(/^\d+$/).transform(Number).pipe(portSchema);
