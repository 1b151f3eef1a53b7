/**
 * Every error's next step fits its case. The table (src/shared/error_codes.ts) is walked whole: every
 * code the bridge can answer and every `details.reason` / `receiptCode` / `documentCode` the
 * daemon (as documented, and as the simulator declares) or the bridge can send has a next step
 * of its own — not its code's, not a fallback — that addresses what its reason names, and the
 * bridge's own messages say what happened without prescribing anything a step could
 * contradict.
 */
import assert from "node:assert/strict";
import { Codes } from "../../../src/shared/errors.ts";
import {
  DAEMON_CODES,
  ERROR_CODES,
  nextStepFor,
  type ReasonEntry,
  reasonKey,
} from "../../../src/shared/error_codes.ts";
import { errorEnvelope } from "../../../src/results/result.ts";
import { DOCUMENT_CODES, ERROR_REASONS } from "../../../src/simulator/errors.ts";
import documented from "../../fixtures/daemon_error_reasons.json" with { type: "json" };
import { bridgeErrorSamples } from "../../support/error_samples.ts";

type Table = Record<string, { nextStep: string; reasons?: Record<string, ReasonEntry> }>;
const TABLE = ERROR_CODES as Table;
const samples = await bridgeErrorSamples();

/** Every (code, reason) the daemon can send: the protocol's, and the simulator's declared ones. */
function daemonReasons(): [string, string][] {
  const pairs: [string, string][] = [];
  const add = (daemonCode: string, reason: string) =>
    pairs.push([DAEMON_CODES[daemonCode as keyof typeof DAEMON_CODES], reason]);
  for (const [code, reasons] of Object.entries(documented.reason)) {
    for (const reason of reasons) add(code, reason);
  }
  for (const [reason, code] of Object.entries(documented.receiptCode)) add(code, reason);
  for (const [reason, code] of Object.entries(documented.documentCode)) add(code, reason);
  for (const [code, reasons] of Object.entries(ERROR_REASONS)) {
    for (const reason of reasons) add(code, reason);
  }
  for (const reason of DOCUMENT_CODES) {
    add(reason.startsWith("invalid_") ? "invalid_input" : "conflict", reason);
  }
  return pairs;
}

Deno.test("every code the bridge can answer is in the table, daemon codes mapped onto it", () => {
  for (const code of Object.values(Codes)) assert.ok(code in TABLE, code);
  for (const [daemonCode, ours] of Object.entries(DAEMON_CODES)) {
    assert.ok(ours in TABLE, `${daemonCode} → ${ours}`);
  }
  for (const { made, error } of samples) assert.ok(error.code in TABLE, `${made}: ${error.code}`);
  // The table knows no code nobody sends (as an error's code, or as the renewal failure of a
  // lapsed credential that an error carries).
  const lapses = samples.flatMap(({ error }) => {
    const failure = error.details.renewalFailure;
    return typeof failure === "object" && failure !== null && "code" in failure
      ? [String(failure.code)]
      : [];
  });
  const sent = new Set<string>([
    ...Object.values(DAEMON_CODES),
    ...samples.map((s) => s.error.code),
    ...lapses,
  ]);
  assert.deepEqual(Object.keys(TABLE).filter((code) => !sent.has(code)), []);
});

Deno.test("every daemon reason has a next step of its own, under the code it comes with", () => {
  const pairs = daemonReasons();
  assert.ok(pairs.length >= 50, `${pairs.length} daemon reasons`);
  const missing = pairs.filter(([code, reason]) => !TABLE[code].reasons?.[reason]);
  assert.deepEqual(missing, [], "reasons without their own step");
  for (const [code, reason] of pairs) {
    const details = reason === "not_found" ? { receiptCode: reason } : { reason };
    assert.notEqual(nextStepFor(code, details), TABLE[code].nextStep, `${code}/${reason}`);
  }
});

Deno.test("every reason the bridge sends is made by a real error path and has its own step", () => {
  const made = new Set(
    samples.map(({ error }) => `${error.code}/${reasonKey(error.details) ?? ""}`),
  );
  for (const [code, entry] of Object.entries(TABLE)) {
    for (const [reason, { from }] of Object.entries(entry.reasons ?? {})) {
      if (from === "bridge") assert.ok(made.has(`${code}/${reason}`), `${code}/${reason} unmade`);
    }
  }
  for (const { made, error } of samples) {
    const key = reasonKey(error.details);
    if (key === undefined) continue;
    assert.ok(TABLE[error.code].reasons?.[key], `${made}: ${error.code}/${key} has no step`);
  }
});

Deno.test("a reason named like an object's own member gets its code's step", () => {
  for (const reason of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
    for (const code of [Codes.conflict, Codes.unavailable]) {
      assert.equal(nextStepFor(code, { reason }), TABLE[code].nextStep, `${code}/${reason}`);
    }
  }
});

/** The words of a reason a step must address (e.g. leases_pending → lease, pending). */
function subject(reason: string): string[] {
  if (reason in documented.receiptCode) return ["receipt"];
  const filler = new Set(["with", "other", "not", "here", "has", "the", "invalid", "missing"]);
  return reason.split(/[_-]/).filter((w) => w.length > 2 && !filler.has(w))
    .map((w) => w.replace(/(ed|s)$/, ""));
}

Deno.test("each reason's step addresses what the reason names", () => {
  const silent: string[] = [];
  for (const [code, entry] of Object.entries(TABLE)) {
    for (const [reason, { nextStep }] of Object.entries(entry.reasons ?? {})) {
      const step = (typeof nextStep === "string" ? nextStep : nextStep({})).toLowerCase();
      const words = subject(reason);
      if (words.length > 0 && !words.some((w) => step.includes(w.toLowerCase()))) {
        silent.push(`${code}/${reason}: "${step}" says nothing of ${words.join(", ")}`);
      }
    }
  }
  assert.deepEqual(silent, []);
});

/** A sentence (or clause) that tells the reader to do something. */
const INSTRUCTION =
  /(^|[.;:!?]\s+)(call|retry|do not|don't|ask|run|start|omit|use|preview|abandon|end|complete|read|check|tell|wait|repeat|send|correct|update|upgrade|relaunch|install|restart|confirm|choose|pass|fix)\b/i;

Deno.test("the bridge's messages say what happened; what to do is the step's alone", () => {
  for (const { made, error } of samples) {
    assert.doesNotMatch(error.message, INSTRUCTION, `${made}: "${error.message}"`);
    const { nextStep } = errorEnvelope(error);
    assert.ok(nextStep.length >= 20, `${made}: a next step`);
  }
});

Deno.test("steps that must agree with their case do", () => {
  const step = (made: string) => {
    const sample = samples.find((s) => s.made === made);
    assert.ok(sample, made);
    return { ...errorEnvelope(sample.error), details: sample.error.details };
  };
  // Declined: says what the host answered, never that a person refused; no repeat.
  for (const made of ["declined", "dismissed", "declined earlier"]) {
    const declined = step(made);
    assert.doesNotMatch(declined.message, /\b(user|person)\b.*\b(did not|declined|refused)/i);
    assert.match(declined.nextStep, /^Ask the user what they want instead/);
    assert.match(declined.nextStep, /do not call this execute again/);
  }
  assert.match(step("declined").message, /The host answered "decline"/);
  assert.match(step("dismissed").message, /The host answered "cancel"/);
  // What is held is let go first (or the original arguments repeated).
  assert.match(step("lease held").nextStep, /abandon it \(portreeve_lease_abandon/);
  assert.match(step("activation held").nextStep, /end it \(portreeve_activation_end\)/);
  assert.match(
    step("operation held").nextStep,
    /complete it \(portreeve_launcher_operation_complete\)/,
  );
  assert.match(step("settled with other arguments").nextStep, /first call's outcome stands/);
  assert.doesNotMatch(step("settled with other arguments").nextStep, /retry/i);
  // activation_end with pending leases: settle them, then end.
  assert.match(
    nextStepFor(Codes.conflict, { reason: "leases_pending" }),
    /^Confirm, skip or abandon the activation's pending endpoint leases first, then end it/,
  );
  // A lost answer: check before repeating, with the named read.
  assert.match(
    step("lost answer to a mutation").nextStep,
    /may have been applied: before repeating it, call portreeve_ports_list/,
  );
  // Not retryable errors never say to retry the same call unchanged.
  for (const { made, error } of samples) {
    if (error.retryable) continue;
    assert.doesNotMatch(errorEnvelope(error).nextStep, /^Retry\b/, made);
  }
});
