/**
 * Reads the daemon's response envelope (`protocolVersion`, `requestId`, then `data` or `error`)
 * into data or a `BridgeError`.
 */
import { BridgeError, Codes, type Details, invalidResponse } from "../errors.ts";
import { bridgeCodeFor, isDaemonCode } from "./errors.ts";
import type { RawResponse } from "./http.ts";
import {
  ANSWER_BOUNDS,
  cutText,
  fitValue,
  NOTE_ROOM,
  withTruncationNote,
} from "../answer_bounds.ts";

export const PROTOCOL_VERSION = 1;

/** Longest unknown error code quoted back (the daemon's own are under 40 characters). */
const QUOTED_CODE = 64;

export function readEnvelope(raw: RawResponse): unknown {
  let body: unknown;
  try {
    body = JSON.parse(raw.text);
  } catch {
    throw invalidResponse(`HTTP ${raw.status} with a body that is not JSON`, {
      status: raw.status,
    });
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalidResponse(`HTTP ${raw.status} with a body that is not a JSON object`, {
      status: raw.status,
    });
  }
  const envelope = body as Record<string, unknown>;
  if (envelope.protocolVersion !== PROTOCOL_VERSION) {
    if (typeof envelope.protocolVersion === "number") {
      throw new BridgeError(
        Codes.incompatible,
        `The PortReeve daemon answered with protocol version ${envelope.protocolVersion}; ` +
          `this bridge speaks version ${PROTOCOL_VERSION}. Update PortReeve or portreeve-mcp so both share it.`,
        false,
        { status: raw.status, protocolVersion: envelope.protocolVersion },
      );
    }
    throw invalidResponse("no protocolVersion in the envelope", { status: raw.status });
  }
  const requestId = typeof envelope.requestId === "string" ? envelope.requestId : undefined;
  if (raw.status >= 200 && raw.status < 300 && "data" in envelope) return envelope.data;
  const error = envelope.error;
  if (typeof error !== "object" || error === null) {
    throw invalidResponse(`HTTP ${raw.status} without data or error`, { status: raw.status });
  }
  const { code, message, retryable, details } = error as Record<string, unknown>;
  if (!isDaemonCode(code)) {
    const quoted = cutText(JSON.stringify(code) ?? "undefined", QUOTED_CODE);
    throw invalidResponse(`unknown error code ${quoted}`, { status: raw.status });
  }
  const sent: Details = typeof details === "object" && details !== null && !Array.isArray(details)
    ? details as Details
    : {};
  // The id first: a cut keeps the first entries of a huge map.
  const withId = requestId && !("requestId" in sent) ? { requestId, ...sent } : sent;
  // What the daemon says is cut where it arrives, so the bridge's own words after it survive.
  const { daemonMessage, daemonDetails } = ANSWER_BOUNDS;
  throw new BridgeError(
    bridgeCodeFor(code),
    typeof message === "string" && message.length > 0
      ? cutText(message, daemonMessage.max)
      : `The daemon answered ${code}.`,
    retryable === true,
    withTruncationNote(fitValue(withId, daemonDetails.max - NOTE_ROOM), ""),
  );
}
