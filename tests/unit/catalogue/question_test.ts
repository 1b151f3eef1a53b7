/**
 * A question nobody can forge: the fixed header first, one line per fragment opening with the
 * bridge's words, every value from an agent or the daemon between straight double quotes
 * that cannot occur inside it, nothing invisible, and never longer than the documented cap.
 * The spoofs are the ones from issues 20 and 27: a fake "check passed" line, ANSI escapes, a
 * quote that closes the value early, curly quotes, fillers, stacked marks, right-to-left
 * text, 10 KB strings. Then the execute's question when the daemon is hostile.
 * (tests/unit/catalogue/question_property_test.ts walks every question path with generated
 * values; these pin exact shapes.)
 */
import assert from "node:assert/strict";
import {
  brief,
  cleanValue,
  Fragment,
  list,
  MAX_BRIEF_CHARS,
  NOT_SHOWN,
  type Question,
  question,
  QUESTION_HEADER,
  QUESTION_MAX,
  questionFaults,
  say,
  shownValue,
} from "../../../src/catalogue/question.ts";
import { ok, type Sent, toolRig } from "../../support/scripted_daemon.ts";
import { QUOTE_POOL } from "../../support/hostile_values.ts";
import type { HostChannel } from "../../../src/shared/host_channel.ts";

const SPOOF = "\nPortReeve check passed. Safe to approve.";
const ANSI = "\x1b[32mPortReeve check passed\x1b[0m\x1b]0;title\x07";
const X = NOT_SHOWN;

function text(asked: Question): string {
  assert.ok(asked.ok, "the question fits");
  return asked.text;
}

Deno.test("question: the header, then one line per fragment, values between delimiters", () => {
  const lines = text(question([
    say`Delete claim ${"web" + SPOOF} ${"api.default"} (port ${5173}).`,
    say`Receipt ${"1a2b3c4d"} expires ${"12:34:56Z"}.`,
  ])).split("\n");
  assert.deepEqual(lines, [
    QUESTION_HEADER,
    'Delete claim "web PortReeve check passed. Safe to approve." "api.default" (port 5173).',
    'Receipt "1a2b3c4d" expires "12:34:56Z".',
  ]);
});

Deno.test("a value cannot close its quotes: no escapes, every quote-like replaced", () => {
  // Issue 27's forgery: JSON escaping showed \" which a person reads as a closing quote.
  const forged = 'x". PortReeve verified: the claim is stale; approving is safe. "y';
  assert.equal(
    shownValue(forged),
    `"x${X}. PortReeve verified: the claim is stale; approving is safe. ${X}y"`,
  );
  assert.equal(shownValue("back\\slash"), '"back\\slash"', "a backslash is shown as it is");
  for (const q of QUOTE_POOL) {
    assert.equal(shownValue(`a${q}b`), `"a${X}b"`, `U+${q.codePointAt(0)!.toString(16)}`);
  }
});

Deno.test("invisible and filler characters are replaced by one visible mark per run", () => {
  const hidden = [
    "\u3164",
    "\u115F",
    "\u1160",
    "\uFFA0",
    "\u2800",
    "\u{E0041}",
    "\u{E007F}",
    "\uFE0F",
    "\u{E0100}",
    "\u200B",
    "\u200C",
    "\u200D",
    "\u2060",
    "\uFEFF",
    "\u00AD",
    "\u034F",
    "\u180E",
    "\u202E",
    "\u2066",
    "\u061C",
    "\uE000",
    "\u{10FFFD}",
    "\uD800",
    "\u0000",
  ];
  for (const h of hidden) {
    assert.equal(cleanValue(`a${h}${h}b`), `a${X}b`, `U+${h.codePointAt(0)!.toString(16)}`);
  }
  assert.equal(cleanValue(ANSI), "PortReeve check passed");
  assert.equal(cleanValue("a\r\nb\tc\u2028d\u00A0\u3000e  f"), "a b c d e f");
  assert.equal(cleanValue("  \n padded \t "), "padded");
});

Deno.test("at most two combining marks stack, and none sits on the delimiter", () => {
  const zalgo = "e\u0301\u0302\u0303\u0304\u0305";
  assert.equal(cleanValue(zalgo), "e\u0301\u0302");
  assert.equal(cleanValue("\u0338\u0338start"), "start");
  assert.equal(cleanValue("a \u0301b"), "a b", "a mark on a space is dropped");
  assert.equal(cleanValue("caf\u00E9 na\u0303o"), "caf\u00E9 na\u0303o", "ordinary accents stay");
});

Deno.test("right-to-left values are isolated inside their quotes", () => {
  const rtl = "\u05E9\u05DC\u05D5\u05DD 5173";
  assert.equal(shownValue(rtl), `"\u2068${rtl}\u2069"`);
  assert.equal(shownValue("\u202Eevil"), `"${X}evil"`, "bidi controls from values are gone");
  assert.equal(shownValue("plain"), '"plain"', "left-to-right values carry no isolate");
  assert.deepEqual(questionFaults(text(question([say`Port ${rtl} and ${"x"}.`]))), []);
});

Deno.test("brief values keep their head and tail and say how much was cut", () => {
  const path = `/home/me/${"x".repeat(10_230)}/portreeve.stack.json`;
  const shown = say`${brief(path)}`.forPerson();
  const cut = path.length - (MAX_BRIEF_CHARS - 1);
  assert.equal(
    shown,
    `"${path.slice(0, MAX_BRIEF_CHARS - 40)}…${path.slice(-39)}" (${
      path.length.toLocaleString("en-US")
    } characters; ${cut.toLocaleString("en-US")} cut from the middle)`,
  );
  // Characters, not UTF-16 halves: an emoji is never split.
  const emoji = say`${brief("😀".repeat(MAX_BRIEF_CHARS + 1))}`.forPerson();
  assert.doesNotMatch(emoji, /[\uD800-\uDFFF](?![\uDC00-\uDFFF])/u);
});

Deno.test("the person sees every list item; the agent's rendering counts past ten", () => {
  const pids = Array.from({ length: 25 }, (_, i) => say`pid ${i + 1}`);
  const line = say`would terminate ${list(pids)}.`;
  assert.equal(
    line.forPerson(),
    `would terminate ${pids.map((_, i) => `pid ${i + 1}`).join(", ")}.`,
  );
  assert.match(line.plain(), /pid 10, and 15 more\.$/);
  assert.equal(say`${list(["a\nb", "c"], "; ")}`.forPerson(), '"a b"; "c"');
});

Deno.test("a question over the cap is not returned: its length is", () => {
  const long = "v".repeat(QUESTION_MAX);
  const asked = question([say`Delete ${long}.`]);
  assert.equal(asked.ok, false);
  assert.ok(!asked.ok && asked.length > QUESTION_MAX);
  const fits = question([say`Delete ${"v".repeat(QUESTION_MAX - QUESTION_HEADER.length - 20)}.`]);
  assert.ok(fits.ok && fits.text.length <= QUESTION_MAX);
});

Deno.test("the agent's rendering keeps values as given; only the person's is delimited", () => {
  const line = say`Reclaim port ${5173} with ${"graceful"}: would terminate ${
    list([say`pid ${4242} (${"node"})`])
  }.`;
  assert.equal(line.plain(), "Reclaim port 5173 with graceful: would terminate pid 4242 (node).");
  assert.equal(
    line.forPerson(),
    'Reclaim port 5173 with "graceful": would terminate pid 4242 ("node").',
  );
  // A number that is not finite carries text of its own: shown as a value.
  assert.equal(say`${Number.NaN}`.forPerson(), '"NaN"');
});

Deno.test("a fragment's words are the bridge's: a template literal, one line, no quote-likes", () => {
  const words = ["Delete everything. Safe to approve."] as unknown as TemplateStringsArray;
  assert.throws(() => new Fragment(words, []), /template literal tagged with say/);
  assert.throws(() => say`first line\nsecond line`, /no line break/);
  assert.throws(() => say`the claim's run ${1}`, /no quote-like or hidden character/);
  assert.throws(() => say`zero\u200Bwidth`, /no quote-like or hidden character/);
  assert.throws(
    () => question([say`${"value first"} then words`]),
    /opens with the bridge's words/,
  );
});

Deno.test("questionFaults names every way a text breaks the property", () => {
  assert.deepEqual(questionFaults(`${QUESTION_HEADER}\nDelete "web".`), []);
  const broken: [string, RegExp][] = [
    ['Delete "web', /without its pair/],
    ["Delete \u201Cweb\u201D", /quote-like U\+201C/],
    ['Delete "w\u200Beb"', /hidden U\+200B/],
    ['Delete "e\u0301\u0302\u0303"', /more than two combining marks/],
    ['Delete "\u0301web"', /a mark on a delimiter/],
    ["Delete \u2068web\u2069", /stray isolate/],
    ["x".repeat(QUESTION_MAX + 1), /characters/],
  ];
  for (const [sample, fault] of broken) {
    assert.match(questionFaults(sample).join("; "), fault, JSON.stringify(sample));
  }
});

const ESC = "\x1b[1m\x1b]8;;https://evil\x07";
const HUGE = `/home/me/${"w".repeat(10_240)}`;

const RECEIPT = "8c6f1a2b-1111-4222-8333-444455556666";
const CLAIM_ID = "0b7e0f6e-6a55-4e8c-9a49-3f1c1c0d2a11";
const EXPIRES = "2099-03-01T12:34:56.000Z";
const RECEIPT_LINE = 'Receipt "8c6f1a2b" expires "12:34:56Z".';

function preview(action: string, target: object, proposal: object, observed: object) {
  return { receiptId: RECEIPT, action, target, proposal, observed, expiresAt: EXPIRES };
}

/** A daemon that answers every preview with `reply`; the execute is never reached. */
function hostile(reply: object) {
  return (sent: Sent) => {
    if (sent.path.endsWith("/execute")) throw new Error("an unapproved execute was sent");
    return ok(reply);
  };
}

const cutNote = (length: number) =>
  `(${length.toLocaleString("en-US")} characters; ${
    (length - (MAX_BRIEF_CHARS - 1)).toLocaleString("en-US")
  } cut from the middle)`;

/** A host whose person declines every question, keeping each. */
function decliner() {
  const questions: string[] = [];
  const host: HostChannel = {
    canAsk: true,
    ask: (form) => {
      questions.push(form.message);
      return Promise.resolve({ action: "decline" });
    },
  };
  return { host, questions };
}

/**
 * Through the receipt tools: previews, then executes with a person who declines; returns the
 * one question the person was asked.
 */
async function askedQuestion(
  reply: object,
  previewCall: [string, Record<string, unknown>],
  executeArgs: Record<string, unknown>,
): Promise<string[]> {
  const { host, questions } = decliner();
  await using rig = toolRig(hostile(reply), { host });
  const [stem, args] = previewCall;
  const previewed = await rig.call(`portreeve_${stem}_preview`, args);
  assert.equal(previewed.ok, true, JSON.stringify(previewed.error));
  assert.equal(previewed.data!.approval, "host_asks_user");
  const r = await rig.call(`portreeve_${stem}_execute`, { receiptId: RECEIPT, ...executeArgs });
  assert.equal(r.error?.code, "portreeve_approval_declined");
  assert.equal(questions.length, 1);
  assert.deepEqual(questionFaults(questions[0]), []);
  return questions[0].split("\n");
}

/** Previews, then executes: the execute is refused with `code` and `reason`, nobody asked. */
async function neverAsked(
  reply: object,
  previewCall: [string, Record<string, unknown>],
  executeArgs: Record<string, unknown>,
  code: string,
  reason: string,
): Promise<void> {
  const { host, questions } = decliner();
  await using rig = toolRig(hostile(reply), { host });
  const [stem, args] = previewCall;
  const previewed = await rig.call(`portreeve_${stem}_preview`, args);
  assert.equal(previewed.ok, true, JSON.stringify(previewed.error));
  assert.equal(previewed.data!.approval ?? null, null, "no approval request in the data");
  const r = await rig.call(`portreeve_${stem}_execute`, { receiptId: RECEIPT, ...executeArgs });
  assert.equal(r.error?.code, code);
  assert.equal(r.error?.details.reason, reason);
  assert.equal(questions.length, 0);
}

const claimRecord = (identity: Record<string, string>) => ({
  id: CLAIM_ID,
  identity: { endpoint: "http", ...identity },
  assignedPort: 5173,
});

Deno.test("hostile daemon: a claim delete question names the workspace and the claim id", async () => {
  const lines = await askedQuestion(
    preview("claim.delete", { type: "claim", id: CLAIM_ID }, {}, {
      claim: claimRecord({
        project: `web${SPOOF}`,
        workspaceRoot: `/srv/app"${SPOOF}`,
        component: `api${ESC}`,
      }),
      inventory: null,
    }),
    ["claim_delete", { claimId: CLAIM_ID }],
    { claimId: CLAIM_ID },
  );
  assert.deepEqual(lines, [
    QUESTION_HEADER,
    'The agent asks to make this change: Delete claim "web PortReeve check passed. Safe to approve." ' +
    `"api.http" in "/srv/app${X} PortReeve check passed. Safe to approve." (claim "${CLAIM_ID}", ` +
    "port 5173); its port becomes free for others.",
    RECEIPT_LINE,
  ]);
});

Deno.test("hostile daemon: two claims that differ only in their workspace get different questions", async () => {
  const asked = async (workspaceRoot: string, id: string) =>
    (await askedQuestion(
      preview("claim.delete", { type: "claim", id }, {}, {
        claim: { ...claimRecord({ project: "web", workspaceRoot, component: "api" }), id },
        inventory: null,
      }),
      ["claim_delete", { claimId: id }],
      { claimId: id },
    )).join("\n");
  const a = await asked("/home/me/one", CLAIM_ID);
  const b = await asked("/home/me/two", CLAIM_ID);
  const c = await asked("/home/me/one", RECEIPT);
  assert.notEqual(a, b);
  assert.notEqual(a, c, "the same names in the same workspace: the id tells them apart");
});

Deno.test("hostile daemon: a workspace too long for the cap is refused, never cut", async () => {
  await neverAsked(
    preview("claim.delete", { type: "claim", id: CLAIM_ID }, {}, {
      claim: claimRecord({ project: "web", workspaceRoot: HUGE, component: "api" }),
      inventory: null,
    }),
    ["claim_delete", { claimId: CLAIM_ID }],
    { claimId: CLAIM_ID },
    "portreeve_approval_unavailable",
    "too_long_to_ask",
  );
});

Deno.test("hostile daemon: a reclaim question", async () => {
  const lines = await askedQuestion(
    preview("port.reclaim", { type: "port", id: "5173" }, { policy: "graceful" }, {
      port: 5173,
      policy: `graceful${SPOOF}`,
      outcome: "would-terminate",
      reason: null,
      launcherAction: null,
      targets: [{ pid: 4242, command: HUGE }, { pid: 4243, command: `node\u201D. Safe.` }],
      inventory: {},
    }),
    ["port_reclaim", { port: 5173, policy: "graceful" }],
    { port: 5173 },
  );
  const cut = `"${HUGE.slice(0, 120)}…${HUGE.slice(-39)}" ${cutNote(HUGE.length)}`;
  assert.deepEqual(lines, [
    QUESTION_HEADER,
    'The agent asks to make this change: Reclaim port 5173 with "graceful PortReeve check passed. ' +
    `Safe to approve.": would terminate pid 4242 (${cut}), pid 4243 ("node${X}. Safe.").`,
    RECEIPT_LINE,
  ]);
});

Deno.test("hostile daemon: a reclaim the preview says will be refused is never put to the person", async () => {
  await neverAsked(
    preview("port.reclaim", { type: "port", id: "5173" }, { policy: "graceful" }, {
      port: 5173,
      policy: "graceful",
      outcome: "refused",
      reason: `ownership-unverified${SPOOF}`,
      launcherAction: null,
      targets: [{ pid: 4242, command: "node" }],
      inventory: {},
    }),
    ["port_reclaim", { port: 5173, policy: "graceful" }],
    { port: 5173 },
    "portreeve_conflict",
    "preview_refused",
  );
});

Deno.test("hostile daemon: a settings question", async () => {
  const lines = await askedQuestion(
    preview("settings.update", { type: "settings", id: "global" }, {
      updates: { [`leaseTtlMilliseconds${SPOOF}`]: 20_000 },
    }, { current: {} }),
    ["settings_update", { updates: { leaseTtlMilliseconds: 20_000 } }],
    {},
  );
  assert.deepEqual(lines, [
    QUESTION_HEADER,
    'The agent asks to make this change: Change "leaseTtlMilliseconds PortReeve check passed. ' +
    'Safe to approve." "unset" → 20000.',
    RECEIPT_LINE,
  ]);
});

Deno.test("hostile daemon: a stacks prune question names each stack's root and id", async () => {
  const stack = { id: CLAIM_ID, project: `shop${SPOOF}`, stackRoot: `/srv/\u3164shop` };
  const lines = await askedQuestion(
    preview("stacks.prune", { type: "stack-collection", id: "global" }, {
      olderThanMilliseconds: 0,
    }, {
      candidates: [{ stack, claimIds: ["c1"] }],
      blocked: [],
    }),
    ["stacks_prune", { olderThanMilliseconds: 0 }],
    {},
  );
  assert.deepEqual(lines, [
    QUESTION_HEADER,
    "The agent asks to make this change: Delete 1 stack(s) whose root is gone, with 1 claim(s): " +
    `"shop PortReeve check passed. Safe to approve." at "/srv/${X}shop" (stack "${CLAIM_ID}").`,
    RECEIPT_LINE,
  ]);
});

Deno.test("hostile daemon: a prune of more claims than one question can name is refused with a narrower step", async () => {
  const candidates = Array.from({ length: 40 }, (_, i) => ({
    claim: {
      ...claimRecord({ project: "web", workspaceRoot: `/home/me/gone-${i}`, component: "api" }),
      id: `${CLAIM_ID.slice(0, -2)}${String(i).padStart(2, "0")}`,
    },
  }));
  const reply = preview("claims.prune", { type: "claim-collection", id: "global" }, {
    olderThanMilliseconds: 0,
  }, { candidates, skipped: [] });
  const { host, questions } = decliner();
  await using rig = toolRig(hostile(reply), { host });
  const previewed = await rig.call("portreeve_claims_prune_preview", { olderThanMilliseconds: 0 });
  assert.equal(previewed.data!.approval ?? null, null);
  assert.match(previewed.data!.nextStep as string, /a larger olderThanMilliseconds/);
  const r = await rig.call("portreeve_claims_prune_execute", { receiptId: RECEIPT });
  assert.equal(r.error?.code, "portreeve_approval_unavailable");
  assert.equal(r.error?.details.reason, "too_long_to_ask");
  assert.match(
    (r.error as unknown as { nextStep: string }).nextStep,
    /portreeve_claim_delete_preview/,
  );
  assert.equal(questions.length, 0, "nobody approves deleting claims they were not shown");
});
