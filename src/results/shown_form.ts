/**
 * Bytes of a result as a host shows it to its model, by the host's `resultShownAs`
 * (src/shared/host_treatment.ts):
 *
 * - "envelope": one copy of the envelope (the text block, or structuredContent, which are the
 *   same JSON). A value costs its JSON's bytes.
 * - "result-json": the whole result serialised as JSON (Cline: `{"content":[{"type":"text",
 *   "text":"<the envelope, escaped>"}],"structuredContent":<the envelope>}`), so the envelope
 *   twice, once escaped. A value costs its JSON's bytes plus those of its escaped copy, exactly:
 *   JSON string escaping works character by character, so the escaped copy of a page is the
 *   escaped copies of its parts in a row.
 *
 * The room reserved around a page's items (PAGE_ROOM: the envelope, the page object and any
 * custody warning) is a reserve, not a measure: a result-json host shows it twice, so it is
 * reserved twice, and the escaped copy's backslashes come out of its slack (a page's own
 * envelope is about a tenth of it). Items are measured exactly, and every result is measured
 * whole as the host shows it before it goes out (catalogue.ts).
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ResultShownAs } from "../shared/host_treatment.ts";

const utf8 = new TextEncoder();
const bytesOf = (text: string) => utf8.encode(text).length;

export interface ShownForm {
  /** Bytes `value`'s JSON costs inside a result as the host shows it. */
  valueBytes(value: unknown): number;
  /** What a reserve of `bytes` of envelope JSON (around the data) takes as the host shows it. */
  roomBytes(bytes: number): number;
  /** Bytes of a whole result as the host shows it. */
  resultBytes(result: CallToolResult): number;
  /** Bytes of a separator between two items (a comma) as the host shows it. */
  separatorBytes: number;
}

/** What a result-json host wraps around the two copies: `{"content":[…"text":""}],…:}`. */
const WRAPPER_BYTES = bytesOf(
  JSON.stringify({ content: [{ type: "text", text: "" }], structuredContent: 0 }),
) - 1;

const ENVELOPE: ShownForm = {
  valueBytes: (value) => bytesOf(JSON.stringify(value)),
  roomBytes: (bytes) => bytes,
  resultBytes(result) {
    const first = result.content[0];
    return first?.type === "text" ? bytesOf(first.text) : 0;
  },
  separatorBytes: 1,
};

const RESULT_JSON: ShownForm = {
  valueBytes(value) {
    const json = JSON.stringify(value);
    // The escaped copy without the quotes JSON.stringify puts around a string.
    return bytesOf(json) + bytesOf(JSON.stringify(json)) - 2;
  },
  roomBytes: (bytes) => 2 * bytes + WRAPPER_BYTES,
  resultBytes: (result) => bytesOf(JSON.stringify(result)),
  separatorBytes: 2,
};

export function shownForm(shownAs: ResultShownAs | undefined): ShownForm {
  return shownAs === "result-json" ? RESULT_JSON : ENVELOPE;
}
