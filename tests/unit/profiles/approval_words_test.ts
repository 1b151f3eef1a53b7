/**
 * `config` and `doctor --host` say, per host, what a person gets before a change: asked
 * through MCP, or (by default, on a host that cannot ask) a refusal unless the entry opts
 * into `--approval auto`. Read from each profile's `asksThroughMcp`. And the widget each host
 * that asks draws for the question's yes/no field, which the bridge words its question for.
 */
import assert from "node:assert/strict";
import { findHost, HOST_PROFILES, parseProfile, renderConfig } from "../../../src/profiles/mod.ts";
import { answerWidget, approvalWords, personGets } from "../../../src/profiles/approval_words.ts";
import { hostTreatments, MCP_CLIENT_NAMES } from "../../../src/profiles/hosts.ts";
import { approvalReport } from "../../../src/cli/doctor_approval.ts";
import { APPROVAL_MODES, DEFAULT_APPROVAL_MODE } from "../../../src/shared/options.ts";
import { HOME_SOCKET, SCRIPT } from "./golden/fixtures.ts";

Deno.test("profiles: each host says whether it asks its user through MCP", () => {
  const asks = Object.fromEntries(HOST_PROFILES.map((p) => [p.id, p.asksThroughMcp]));
  assert.equal(asks.claude, true);
  assert.equal(asks.codex, true);
  assert.equal(asks.gemini, false);
  assert.equal(asks.generic, null);
  const { asksThroughMcp: _, ...without } = findHost("gemini")!;
  assert.throws(() => parseProfile(without, "x.json"), /asksThroughMcp/);
  assert.throws(
    () => parseProfile({ ...without, asksThroughMcp: "yes" }, "x.json"),
    /asksThroughMcp/,
  );
});

Deno.test("config: by default a host that asks asks, and one that cannot is refused unless auto", () => {
  const person = (host: string, approval?: string) =>
    renderConfig({ host, portable: false, socket: HOME_SOCKET, approval }, SCRIPT);
  assert.equal(person("claude").approval.person, "asked_through_mcp");
  assert.equal(person("codex").approval.person, "asked_through_mcp");
  assert.equal(person("gemini").approval.person, "refused_unless_auto");
  assert.equal(person("gemini", "auto").approval.person, "host_tool_prompt");
  assert.equal(person("generic").approval.person, "depends_on_host");
  assert.equal(person("claude", "off").approval.person, "never_asked");
  for (const profile of HOST_PROFILES) {
    const result = person(profile.id);
    assert.equal(result.approval.mode, DEFAULT_APPROVAL_MODE);
    assert.ok(!result.args.includes("--approval"), "the default is not printed");
    const note = result.notes.find((n) => n.startsWith("Approval ("));
    assert.equal(note, approvalWords(DEFAULT_APPROVAL_MODE, profile));
  }
  const gemini = person("gemini").notes.find((n) => n.startsWith("Approval ("))!;
  assert.match(gemini, /cannot ask you through MCP, so each change .* is refused/);
  assert.match(gemini, /add --approval auto to the entry's arguments/);
  assert.match(person("claude").notes.join("\n"), /asks you through MCP before each change/);
});

Deno.test("doctor: the approval line is config's note, plus what an unattended host does", () => {
  for (const profile of HOST_PROFILES) {
    for (const mode of APPROVAL_MODES) {
      const report = approvalReport(mode, profile.id);
      assert.ok(report.startsWith(approvalWords(mode, profile)), `${profile.id} ${mode}`);
      assert.equal(personGets(mode, profile) === "never_asked", mode === "off");
    }
  }
  assert.match(approvalReport("required", "codex"), /answers "decline" unseen/);
  assert.match(approvalReport("required", "gemini"), /is refused\. To let Gemini CLI's own/);
});

Deno.test("every host that asks and names itself has its widget's words; the bridge gets them by that name", () => {
  const { byClient, fallback } = hostTreatments();
  for (const profile of HOST_PROFILES) {
    const names = MCP_CLIENT_NAMES[profile.id] ?? [];
    // A host the running bridge can recognise, and that asks: its yes/no widget is known.
    if (profile.asksThroughMcp === true && names.length > 0) {
      assert.notEqual(answerWidget(profile.id), "unknown", `${profile.id}'s widget`);
    }
    for (const name of names) {
      assert.equal(byClient[name].answerWidget, answerWidget(profile.id), name);
    }
  }
  assert.equal(answerWidget("claude"), "checkbox");
  assert.equal(answerWidget("codex"), "true_false");
  assert.equal(answerWidget("copilot"), "yes_no");
  assert.equal(fallback.answerWidget, "unknown", "a host of no known name gets words for any");
});
