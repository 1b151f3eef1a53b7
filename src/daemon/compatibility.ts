/**
 * Whether the daemon that answers can serve this bridge: its protocol range against ours
 * (the verdict the client caches), and the capabilities a route needs against those it
 * advertises. Both refusals are `portreeve_incompatible`.
 */
import { BridgeError, Codes } from "../shared/errors.ts";
import type { z } from "zod";
import { PROTOCOL_VERSION } from "./envelope.ts";
import type { HEALTH_ROUTE } from "./replies.ts";

/** The daemon's health record, as its reply schema checked it (replies.ts). */
export type Health = z.output<typeof HEALTH_ROUTE.schema>;

export type Verdict =
  | { compatible: true; health: Health }
  | { compatible: false; health: Health; reason: string };

export function judge(health: Health): Verdict {
  const { minimum, maximum } = health.protocol;
  if (minimum <= PROTOCOL_VERSION && maximum >= PROTOCOL_VERSION) {
    return { compatible: true, health };
  }
  return {
    compatible: false,
    health,
    reason:
      `the daemon speaks protocol ${minimum}–${maximum}, this bridge speaks ${PROTOCOL_VERSION}`,
  };
}

export function incompatible(health: Health, reason: string): BridgeError {
  return new BridgeError(
    Codes.incompatible,
    `PortReeve ${health.softwareVersion} is not compatible with this bridge: ${reason}.`,
    false,
    { health, mismatch: reason },
  );
}

/** Those of the `required` capabilities the daemon does not advertise. */
export function missingCapabilities(health: Health, required: readonly string[]): string[] {
  return required.filter((c) => !health.capabilities.includes(c));
}

/** The refusal of a tool whose `required` capabilities the daemon lacks, if it lacks any. */
export function lacking(health: Health, required: readonly string[]): BridgeError | undefined {
  const missing = missingCapabilities(health, required);
  if (missing.length === 0) return undefined;
  return new BridgeError(
    Codes.incompatible,
    `The PortReeve daemon (version ${health.softwareVersion}) lacks ${
      missing.join(", ")
    }, which this tool needs.`,
    false,
    {
      requiredCapabilities: [...required],
      missingCapabilities: missing,
      serverCapabilities: health.capabilities,
    },
  );
}
