/**
 * Reads the daemon's response envelope (`protocolVersion`, `requestId`, then `data` or `error`)
 * into data or a `BridgeError`.
 */
import { isObject } from "../shared/json.ts";
import { BridgeError, Codes, type Details, invalidResponse } from "../shared/errors.ts";
import { bridgeCodeFor, isDaemonCode } from "./errors.ts";
import type { RawResponse } from "./http.ts";
import {
  ANSWER_BOUNDS,
  cutText,
  fitValue,
  NOTE_ROOM,
  withTruncationNote,
} from "../shared/answer_bounds.ts";
import { deeperThan } from "../shared/depth.ts";

export const PROTOCOL_VERSION = 1;

/** Far deeper than any reply of protocol v1 (its records nest about ten levels). */
const MAX_ANSWER_DEPTH = 256;

export function readEnvelope(raw: RawResponse): unknown {
  let body: unknown;
  try {
    body = JSON.parse(raw.text);
  } catch {
    throw unreadable(raw.status, `HTTP ${raw.status} with a body that is not JSON`);
  }
  if (!isObject(body)) {
    throw unreadable(raw.status, `HTTP ${raw.status} with a body that is not a JSON object`);
  }
  // No reply of the protocol nests this deep; one that did could not even be serialised.
  if (deeperThan(body, MAX_ANSWER_DEPTH) !== null) {
    throw unreadable(raw.status, `a body nested deeper than ${MAX_ANSWER_DEPTH} levels`);
  }
  const envelope = body;
  if (envelope.protocolVersion !== PROTOCOL_VERSION) {
    if (typeof envelope.protocolVersion === "number") {
      throw new BridgeError(
        Codes.incompatible,
        `The PortReeve daemon answered with protocol version ${envelope.protocolVersion}; ` +
          `this bridge speaks version ${PROTOCOL_VERSION}.`,
        false,
        { status: raw.status, protocolVersion: envelope.protocolVersion },
      );
    }
    throw unreadable(raw.status, "no protocolVersion in the envelope");
  }
  if (raw.status >= 200 && raw.status < 300 && "data" in envelope) return envelope.data;
  const error = envelope.error;
  if (!isObject(error)) {
    throw unreadable(raw.status, `HTTP ${raw.status} without data or error`);
  }
  const { code, message, retryable, details } = error;
  if (!isDaemonCode(code)) throw unreadable(raw.status, `an unknown error code ${codeShown(code)}`);
  // The daemon's requestId names its log line, nothing a model can act on: it stays out.
  const extra: Details = isObject(details) ? details : {};
  const ours = bridgeCodeFor(code);
  // What the daemon says is cut where it arrives, so the bridge's own words after it survive.
  const { daemonMessage, daemonDetails } = ANSWER_BOUNDS;
  // Where the bridge renames the daemon's code, the daemon's own is kept.
  const kept = ours === `portreeve_${code}` ? extra : { daemonCode: code, ...extra };
  throw new BridgeError(
    ours,
    typeof message === "string" && message.length > 0
      ? cutText(message, daemonMessage.max)
      : `The daemon answered ${code}.`,
    retryable === true,
    withTruncationNote(fitValue(kept, daemonDetails.max - NOTE_ROOM), ""),
  );
}

/**
 * An answer that is not a readable PortReeve reply. An HTTP 5xx means the daemon itself
 * failed (its fault, not the socket's or ours); anything else is an unreadable response.
 */
function unreadable(status: number, reason: string): BridgeError {
  if (status >= 500 && status <= 599) {
    return new BridgeError(
      Codes.daemonError,
      `The PortReeve daemon failed with HTTP ${status} (${reason}).`,
      false,
      { status },
    );
  }
  return invalidResponse(reason, { status });
}

/** A daemon's code as the message may show it: a short code-like word, or only its size. */
function codeShown(code: unknown): string {
  if (typeof code === "string" && /^[a-z][a-z0-9_]{0,63}$/.test(code)) return `"${code}"`;
  if (typeof code === "string") return `(not a code: ${code.length} characters)`;
  return `(${code === null ? "null" : typeof code}, not a string)`;
}
