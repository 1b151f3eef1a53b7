/**
 * THE property of every question put to a person (declared in src/catalogue/question.ts),
 * walked over every path that builds one — the preview of every `*_execute` tool and the
 * acquire gate — first with every assigned code point of Unicode, in runs (each run goes out
 * again until the person was shown it whole), then with generated values: random runs of
 * Unicode, line breaks, terminal escapes, stacked marks, look-alikes of the bridge's words,
 * long strings and long lists. Each question is read as a person reads it
 * (tests/support/question_reader.ts, written apart from question.ts):
 *
 * - the bridge's words and structure are intact: the header names each part, then the guide,
 *   the legend where a character is spelt out, then only the bridge's words or `label: value`
 *   lines; no agent or daemon text (each carries a trace token) stands in a label or in words;
 * - each value, read back (escapes decoded, pieces joined across parts), is one that the agent
 *   or the daemon wrote, never two joined; every part of an item's identity is shown whole;
 * - nothing invisible and nothing NFKC changes; each part within QUESTION_MAX, at most
 *   MAX_PARTS; the person is asked exactly those parts, and a no to the last sends nothing;
 * - an item changed, the question changed; nothing is asked about a preview that will change
 *   nothing or be refused.
 *
 * The walk covers every execute tool and every tool whose input can be consequential: a new
 * one without a case here fails the first test.
 */
import assert from "node:assert/strict";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { isValueRule } from "../../../src/daemon/effects.ts";
import { QUESTION_MAX } from "../../../src/catalogue/question.ts";
import type { Asking } from "../../../src/catalogue/receipt_book.ts";
import { ok, type Reply, type Sent, toolRig } from "../../support/scripted_daemon.ts";
import { askingPerson } from "../../support/person.ts";
import { Gen, UnicodeRuns } from "../../support/hostile_values.ts";
import { readQuestion, type ReadValue } from "../../support/question_reader.ts";
import {
  acquireIdentity,
  type AcquireMade,
  acquireMade,
  CASES,
  type Made,
  type PreviewCase,
  varyAcquire,
} from "../../support/question_paths.ts";

const RUNS = 24;
const EXPIRES = "2026-11-30T04:23:00.000Z";
/** More questions than this for one path means its runs never reach the person. */
const MOST_QUESTIONS = 4_000;

/**
 * Every string the agent or the daemon wrote in `sources` (keys too), and what the bridge may
 * show of one: a number's digits, a value's JSON.
 */
function written(...sources: unknown[]): string[] {
  const found: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === "string") found.push(value);
    else if (typeof value === "number") found.push(String(value));
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object") {
      for (const [key, child] of Object.entries(value)) {
        found.push(key, JSON.stringify(child) ?? "");
        walk(child);
      }
    }
  };
  sources.forEach(walk);
  return found;
}

const PORT_LIST = /^\d+(–\d+)?(, \d+(–\d+)?)*$/;

/** How the question `parts` breaks the property, given what was written and must be shown. */
function faults(parts: readonly string[], wrote: string[], identity: string[]) {
  const read = readQuestion(parts);
  const found = [...read.faults];
  for (const { label, value } of read.values) {
    if (PORT_LIST.test(value) || wrote.some((w) => w.includes(value))) continue;
    found.push(`${label}: a value nobody wrote: ${JSON.stringify(value.slice(0, 80))}`);
  }
  for (const value of identity) {
    if (!read.values.some((v) => v.value === value)) {
      found.push(`not shown whole: ${JSON.stringify(value.slice(0, 80))}`);
    }
  }
  return { found, values: read.values };
}

/**
 * Previews `made` through the real tool, then executes it with a person who approves every
 * part but the last. The receipt id is the caller's: two walks compared share it.
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
  let executes = 0;
  const script = (sent: Sent) => {
    if (sent.path.endsWith("/execute")) executes++;
    return reply;
  };
  const previewTool = tool.replace(/_execute$/, "_preview");
  const { host, questions: asked } = askingPerson("all but the last");
  await using rig = toolRig(script, { host });
  const preview = await rig.call(previewTool, made.args);
  assert.equal(preview.ok, true, `${previewTool}: ${JSON.stringify(preview.error)}`);
  const asking: Asking = rig.ctx.receipts.get(receiptId)!.asking;
  const executed = await rig.call(tool, { receiptId, ...made.execute });
  assert.equal(executed.ok, false, `${tool} was executed`);
  assert.equal(executes, 0, `${tool}: an execute was sent before every part was approved`);
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

/** One question of a path: the property holds, and the person saw exactly its parts. */
async function onePreview(tool: string, spec: PreviewCase, made: Made, receiptId: string) {
  const first = await walkPreview(tool, spec, made, receiptId);
  const where = `${tool} ${receiptId}`;
  const { asking } = first;
  tally(`${tool}:${asking.kind}`);
  if (asking.kind !== "question") {
    // Nothing to do, refused, or too long to name: nobody is asked, the data asks nothing.
    assert.equal(first.asked.length, 0, where);
    assert.equal(first.approval, null, where);
    if (asking.kind === "too_long_to_ask") assert.ok(asking.length > QUESTION_MAX, where);
    return { first, values: [] as ReadValue[] };
  }
  if (asking.parts.length > 1) tally(`${tool}:parts`);
  const wrote = written(made.args, made.observed, made.proposal);
  const { found, values } = faults(asking.parts, wrote, spec.identity(made));
  assert.deepEqual(found, [], `${where}:\n${asking.parts.join("\n-----\n").slice(0, 6000)}`);
  assert.deepEqual(first.asked, asking.parts, `${where}: the person saw exactly these parts`);
  assert.equal(first.error.code, "portreeve_approval_declined", where);
  return { first, values };
}

for (const [tool, spec] of Object.entries(CASES)) {
  Deno.test(`question property, every code point: ${tool}`, async () => {
    const g = new Gen(`${tool} unicode`);
    const runs = new UnicodeRuns();
    g.source = runs;
    for (let n = 0; !runs.done; n++) {
      assert.ok(n < MOST_QUESTIONS, `${tool}: ${runs.left} never reached a question`);
      const { values } = await onePreview(tool, spec, spec.make(g), g.uuid());
      runs.settle((run) => values.some((v) => v.value.includes(run)));
    }
  });

  Deno.test(`question property, generated values: ${tool}`, async () => {
    const g = new Gen(tool);
    for (let run = 0; run < RUNS; run++) {
      const made = spec.make(g);
      const receiptId = g.uuid();
      const { first } = await onePreview(tool, spec, made, receiptId);
      if (first.asking.kind !== "question") continue;
      // Distinct items, distinct questions.
      const other = await walkPreview(tool, spec, spec.vary(made, g), receiptId);
      if (other.asking.kind === "question") {
        tally(`${tool}:distinct`);
        assert.notDeepEqual(other.asking.parts, first.asking.parts, `${tool} run ${run}`);
      }
    }
  });
}

/** The acquire through the real tool: the parts the person was asked, or the refusal. */
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
  const { host, questions: parts } = askingPerson("all but the last");
  await using rig = toolRig(script, { host });
  const r = await rig.call("portreeve_lease_acquire", {
    claim: made.claim,
    allocation: { replacementPolicy: made.policy },
  });
  assert.equal(r.ok, false);
  return { parts, code: r.error?.code };
}

async function oneAcquire(made: AcquireMade) {
  const first = await walkAcquire(made);
  if (first.parts.length === 0) {
    tally("acquire:too_long_to_ask");
    assert.equal(first.code, "portreeve_approval_unavailable");
    return { first, values: [] as ReadValue[] };
  }
  tally("acquire:question");
  if (first.parts.length > 1) tally("acquire:parts");
  assert.equal(first.code, "portreeve_approval_declined");
  const { found, values } = faults(first.parts, written(made), acquireIdentity(made));
  assert.deepEqual(found, [], first.parts.join("\n-----\n").slice(0, 6000));
  return { first, values };
}

Deno.test("question property, every code point: the acquire gate", async () => {
  const g = new Gen("acquire unicode");
  const runs = new UnicodeRuns();
  g.source = runs;
  for (let n = 0; !runs.done; n++) {
    assert.ok(n < MOST_QUESTIONS, `acquire: ${runs.left} never reached a question`);
    const { values } = await oneAcquire(acquireMade(g));
    runs.settle((run) => values.some((v) => v.value.includes(run)));
  }
});

Deno.test("question property, generated values: the acquire gate", async () => {
  const g = new Gen("acquire");
  for (let run = 0; run < RUNS; run++) {
    const made = acquireMade(g);
    const { first } = await oneAcquire(made);
    if (first.parts.length === 0) continue;
    const other = await walkAcquire(varyAcquire(made, g));
    if (other.parts.length > 0) {
      tally("acquire:distinct");
      assert.notDeepEqual(other.parts, first.parts, `acquire run ${run}: an item changed`);
    }
  }
});

Deno.test("question property: the walk reached every outcome", () => {
  const must = [
    ...Object.keys(CASES).flatMap((tool) => [
      `${tool}:question`,
      `${tool}:distinct`,
      `${tool}:parts`,
    ]),
    "portreeve_claims_prune_execute:too_long_to_ask",
    "portreeve_claims_prune_execute:nothing_to_do",
    "portreeve_port_reclaim_execute:preview_refused",
    "acquire:question",
    "acquire:distinct",
    "acquire:parts",
  ];
  assert.deepEqual(must.filter((what) => !seen.has(what)), [], JSON.stringify([...seen]));
});
