/**
 * THE property of every question put to a person (declared in src/catalogue/question.ts),
 * walked over every path that builds one — the preview of every `*_execute` tool and the
 * acquire gate — with hostile values from a seeded generator: quote-likes of every script,
 * fillers, tag characters, zero-width and bidi characters, right-to-left text, combining-mark
 * stacks, terminal escapes, line breaks, long strings and long lists. For each question:
 *
 * - no delimiter inside a value: every `"` is a delimiter, no other quote-like occurs, and no
 *   agent or daemon text (each carries a trace token) stands outside a pair of delimiters;
 * - the cap holds: at most QUESTION_MAX characters; a change that cannot fit is never asked;
 * - nothing invisible: no control, format, private, unassigned or filler character but the
 *   isolates just inside a delimiter, and no more than two stacked combining marks;
 * - distinct items → distinct questions: changing any part of an item's identity (an id, a
 *   name, a path, a port, a pid, a setting's value) changes the question;
 * - nothing is asked about a preview that will change nothing or be refused.
 *
 * The walk covers every execute tool and every tool whose input can be consequential: a new
 * one without a case here fails the first test. Checks are written here, independently of
 * question.ts.
 */
import assert from "node:assert/strict";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { isValueRule } from "../../../src/daemon/effects.ts";
import { QUESTION_MAX } from "../../../src/catalogue/question.ts";
import type { Asking } from "../../../src/catalogue/receipt_book.ts";
import { ok, type Reply, type Sent, toolRig } from "../../support/scripted_daemon.ts";
import type { HostChannel } from "../../../src/shared/host_channel.ts";
import { Gen, HIDDEN_POOL, QUOTE_POOL } from "../../support/hostile_values.ts";
import {
  type AcquireMade,
  acquireMade,
  CASES,
  type Made,
  type PreviewCase,
  varyAcquire,
} from "../../support/question_paths.ts";

const RUNS = 40;
const EXPIRES = "2026-11-30T04:23:00.000Z";

/** Hebrew, Arabic and the other right-to-left blocks. */
const RIGHT_TO_LEFT =
  /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFE\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;

/** Trace tokens of agent and daemon text: each generated value carries one. */
const TOKEN = /Zq\d+qZ/;

/** The faults this test sees in a question (empty when the property holds). */
function faults(text: string): string[] {
  const found: string[] = [];
  if (text.length > QUESTION_MAX) found.push(`${text.length} > ${QUESTION_MAX} characters`);
  const parts = text.split('"');
  if (parts.length % 2 === 0) found.push("a delimiter without its pair");
  parts.forEach((part, i) => {
    // Outside the delimiters only the bridge's words stand: no agent or daemon text.
    if (i % 2 === 0 && TOKEN.test(part.replace(/\p{M}/gu, ""))) {
      found.push(`value text outside delimiters: ${JSON.stringify(part.slice(0, 80))}`);
    }
    if (i % 2 === 1) {
      const inner = part.startsWith("\u2068") && part.endsWith("\u2069") ? part.slice(1, -1) : part;
      if (/[\u2068\u2069]/.test(inner)) found.push("an isolate inside a value");
      if (/^\p{M}/u.test(inner)) found.push("a mark on the opening delimiter");
      if (RIGHT_TO_LEFT.test(inner) && inner === part) {
        found.push("right-to-left text not isolated");
      }
    } else if (/[\u2068\u2069]/.test(part)) found.push("an isolate outside a value");
  });
  for (const char of text) {
    if (QUOTE_POOL.includes(char) && char !== '"') found.push(`quote-like U+${hex(char)}`);
    // The isolates are checked above: only just inside a pair of delimiters.
    if (HIDDEN_POOL.includes(char) && !"\u2068\u2069".includes(char)) {
      found.push(`hidden U+${hex(char)}`);
    }
    if (char !== "\n" && /[\p{Cc}\p{Co}\p{Cn}\p{Cs}]/u.test(char)) {
      found.push(`control U+${hex(char)}`);
    }
    if (!"\u2068\u2069".includes(char) && /\p{Cf}/u.test(char)) found.push(`format U+${hex(char)}`);
  }
  if (/\p{M}{3}/u.test(text)) found.push("three stacked combining marks");
  return found;
}

const hex = (char: string) => char.codePointAt(0)!.toString(16).toUpperCase();

/** A host whose person declines, keeping every question. */
function person() {
  const asked: string[] = [];
  const host: HostChannel = {
    canAsk: true,
    ask: (form) => {
      asked.push(form.message);
      return Promise.resolve({ action: "decline" });
    },
  };
  return { host, asked };
}

/**
 * Previews `made` through the real tool, then executes it with a person who declines. The
 * receipt id is the caller's: two walks compared for distinctness share it.
 */
async function walkPreview(tool: string, spec: PreviewCase, made: Made, receiptId: string) {
  const reply: Reply = ok({
    receiptId,
    action: spec.action,
    target: spec.target(made),
    proposal: made.proposal,
    observed: made.observed,
    expiresAt: EXPIRES,
  });
  const script = (sent: Sent) => {
    if (sent.path.endsWith("/execute")) throw new Error(`${tool}: an unapproved execute was sent`);
    return reply;
  };
  const { host, asked } = person();
  await using rig = toolRig(script, { host });
  const previewTool = tool.replace(/_execute$/, "_preview");
  const preview = await rig.call(previewTool, made.args);
  assert.equal(preview.ok, true, `${previewTool}: ${JSON.stringify(preview.error)}`);
  const asking: Asking = rig.ctx.receipts.get(receiptId)!.asking;
  const executed = await rig.call(tool, { receiptId, ...made.execute });
  assert.equal(executed.ok, false, `${tool} was executed unasked`);
  return { asking, asked, approval: preview.data!.approval ?? null, error: executed.error! };
}

/** Tallies, so the walk cannot pass by never reaching a kind of outcome. */
const seen = new Map<string, number>();
const tally = (what: string) => seen.set(what, (seen.get(what) ?? 0) + 1);

Deno.test("every execute and every consequential input has a question case here", () => {
  const executes = ALL_TOOLS.filter((t) => t.kind === "execute").map((t) => t.name).sort();
  assert.deepEqual(Object.keys(CASES).sort(), executes);
  const inputs = ALL_TOOLS.filter((t) =>
    t.kind !== "execute" && (t.routes ?? []).some((route) => isValueRule(route.effect))
  ).map((t) => t.name);
  assert.deepEqual(inputs, ["portreeve_lease_acquire"], "each has its walk below");
});

for (const [tool, spec] of Object.entries(CASES)) {
  Deno.test(`question property: ${tool}`, async () => {
    const g = new Gen(tool);
    for (let run = 0; run < RUNS; run++) {
      const made = spec.make(g);
      const receiptId = g.uuid();
      const first = await walkPreview(tool, spec, made, receiptId);
      const where = `${tool} run ${run}`;
      const { asking } = first;
      tally(`${tool}:${asking.kind}`);
      if (asking.kind !== "question") {
        // Nothing to do, refused, or too long to name: nobody is asked, the data asks nothing.
        assert.equal(first.asked.length, 0, where);
        assert.equal(first.approval, null, where);
        if (asking.kind === "too_long_to_ask") assert.ok(asking.length > QUESTION_MAX, where);
        continue;
      }
      assert.deepEqual(faults(asking.text), [], `${where}:\n${asking.text}`);
      assert.deepEqual(first.asked, [asking.text], `${where}: the person saw exactly this`);
      assert.equal(first.error.code, "portreeve_approval_declined", where);
      // Distinct items, distinct questions.
      const other = await walkPreview(tool, spec, spec.vary(made, g), receiptId);
      if (other.asking.kind === "question") {
        tally(`${tool}:distinct`);
        assert.notEqual(
          other.asking.text,
          asking.text,
          `${where}: an item changed, the question did not`,
        );
      }
    }
  });
}

Deno.test("question property: the acquire gate", async () => {
  const g = new Gen("acquire");
  for (let run = 0; run < RUNS; run++) {
    const made = acquireMade(g);
    const first = await walkAcquire(made);
    const where = `acquire run ${run}`;
    if (first.question === undefined) {
      tally("acquire:too_long_to_ask");
      assert.equal(first.code, "portreeve_approval_unavailable", where);
      continue;
    }
    tally("acquire:question");
    assert.deepEqual(faults(first.question), [], `${where}:\n${first.question}`);
    const other = await walkAcquire(varyAcquire(made, g));
    if (other.question !== undefined) {
      tally("acquire:distinct");
      assert.notEqual(other.question, first.question, `${where}: an item changed`);
    }
  }
});

/** The acquire through the real tool: the question the person was asked, or the refusal. */
async function walkAcquire(made: AcquireMade) {
  const claimId = "0b7e0f6e-6a55-4e8c-9a49-3f1c1c0d2a11";
  const entry = {
    port: made.port,
    claim: { id: claimId },
    run: { id: made.runId, claimId, state: "confirmed" },
    listeners: made.listeners,
  };
  const script = (sent: Sent) => {
    if (sent.method === "GET" && sent.path === "/v1/ports") return ok([entry]);
    throw new Error(`an unapproved ${sent.method} ${sent.path} was sent`);
  };
  const { host, asked } = person();
  await using rig = toolRig(script, { host });
  const r = await rig.call("portreeve_lease_acquire", {
    claim: made.claim,
    allocation: { replacementPolicy: made.policy },
  });
  assert.equal(r.ok, false);
  return { question: asked[0], code: r.error?.code };
}

Deno.test("question property: the walk reached every outcome", () => {
  const must = [
    ...Object.keys(CASES).flatMap((tool) => [`${tool}:question`, `${tool}:distinct`]),
    "portreeve_claims_prune_execute:too_long_to_ask",
    "portreeve_claims_prune_execute:nothing_to_do",
    "portreeve_stacks_prune_execute:too_long_to_ask",
    "portreeve_port_reclaim_execute:preview_refused",
    "portreeve_settings_update_execute:too_long_to_ask",
    "acquire:question",
    "acquire:distinct",
    "acquire:too_long_to_ask",
  ];
  assert.deepEqual(must.filter((what) => !seen.has(what)), [], JSON.stringify([...seen]));
});
