/**
 * docs/memory.md states the valve's bounds in a table; every value there is the one the code
 * enforces (FLOW_LIMITS), so the page cannot drift from the transport.
 */
import assert from "node:assert/strict";
import { FLOW_LIMITS } from "../../../src/transport/stdio_transport.ts";

const DOC = await Deno.readTextFile(new URL("../../../docs/memory.md", import.meta.url));
const KiB = 1024;
const MiB = 1024 * KiB;

function size(bytes: number): string {
  return bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes / KiB} KiB`;
}

const count = (n: number) => n.toLocaleString("en-US");

/** The Value cell of the table row whose Bound cell is `bound`. */
function value(bound: string): string {
  const row = DOC.split("\n").find((line) => line.startsWith(`| ${bound} `));
  assert.ok(row, `docs/memory.md has a row for "${bound}"`);
  return row.split("|")[2].trim();
}

Deno.test("docs/memory.md states the bounds the transport enforces", () => {
  const { frame, output, pending } = FLOW_LIMITS;
  const expected: Record<string, string> = {
    "One frame": size(frame.maxBytes),
    "One frame's nesting": `${count(frame.maxDepth)} levels`,
    "One frame's values": count(frame.maxValues),
    "Answers queued and unread: frames": `${count(output.highFrames)} (reopens at ${
      count(output.lowFrames)
    })`,
    "Answers queued and unread: bytes": `${size(output.highBytes)} (reopens at ${
      size(output.lowBytes)
    })`,
    "Tool calls pending (taken, not answered)": count(pending.maxCalls),
    "Parse cost of the frames of pending requests": `${size(pending.maxCost)} (${
      size(pending.smallCost)
    } or less:`,
    "Other requests pending (ping, tools/list…)": count(pending.maxOthers),
  };
  for (const [bound, stated] of Object.entries(expected)) {
    assert.ok(value(bound).startsWith(stated), `${bound}: "${value(bound)}" should say ${stated}`);
  }
});
