/**
 * The guards every tool call passes through in src/catalogue/catalogue.ts, each held by a test
 * of its own (the real catalogue, custody on a fake clock and a scripted daemon; no process):
 * - a tool reaches only the routes its definition declares (`declaredRoutesOnly`);
 * - token removal, first layer: credential-named fields are stripped from results and error
 *   details, whatever their value (one this bridge never held included);
 * - token removal, second layer: every fragment of a credential custody holds is masked in
 *   whatever a result or an error shows, under any field name.
 * The third layer, the stdout scrubber, is held by tests/unit/bridge/stdio_test.ts.
 * And the catalogue's answer to a tool's own bug: the agent reads `portreeve_internal` and no more,
 * while whoever runs the bridge (its log, a test) is told the cause. A gate refusal (a tool that
 * sends a consequential request without the approval module's proof) is such a bug: it is
 * refused unsent, and a test that meets one fails naming the request and why.
 * Last, what an agent must read whole (a preview's summary and next step) is never cut to fit
 * a host's result limit: the rest of the data is.
 */
import assert from "node:assert/strict";
import { Catalogue } from "../../../src/catalogue/catalogue.ts";
import { portsList } from "../../../src/catalogue/tools/ports.ts";
import { settingsGet } from "../../../src/catalogue/tools/settings.ts";
import {
  daemonError,
  inOrder,
  ok,
  type Reply,
  ToolBug,
  toolRig,
} from "../../support/scripted_daemon.ts";
import { z } from "zod";
import { hostTreatments } from "../../../src/profiles/hosts.ts";
import { CASES } from "../../support/question_paths.ts";
import { Gen } from "../../support/hostile_values.ts";
import { defineTool } from "../../../src/catalogue/define.ts";
import { consequential, post } from "../../../src/catalogue/routes.ts";
import { mutate } from "../../../src/catalogue/daemon_calls.ts";
import { recorded, RECORDED_ACQUIRE } from "../../support/recorded.ts";
import type { CallToolResult } from "@modelcontextprotocol/server";

/** Everything a host would see of a result: its text and its structured content. */
function shown(result: unknown): string {
  return JSON.stringify(result);
}

Deno.test("declared routes only: a request to a route the tool's definition omits is never sent", async () => {
  const config = recorded("config");
  await using rig = toolRig(inOrder(config.reply, config.reply));
  const bugs: string[] = [];
  // The real ports_list, with its declared routes taken away.
  const catalogue = new Catalogue(
    "full",
    undefined,
    () => Promise.resolve([{ ...portsList, routes: [] }]),
  );
  catalogue.onBug = (tool, error) => bugs.push(`${tool}: ${String(error)}`);
  const result = await catalogue.call("portreeve_ports_list", {}, rig.ctx) as CallToolResult;
  assert.equal(result.isError, true);
  assert.match(shown(result), /portreeve_internal/);
  assert.deepEqual(rig.daemon.sent, [], "nothing reached the daemon");
  assert.equal(bugs.length, 1);
  assert.match(
    bugs[0],
    /^portreeve_ports_list: Error: portreeve_ports_list requested GET \/v1\/ports/,
  );
  assert.match(bugs[0], /which its definition omits/);
  // Its declared routes restored, the same call is sent.
  const whole = new Catalogue("full", undefined, () => Promise.resolve([settingsGet]));
  const answered = await whole.call("portreeve_settings_get", {}, rig.ctx) as CallToolResult;
  assert.notEqual(answered.isError, true, shown(answered));
  assert.equal(rig.daemon.sent.length, 1);
});

/** Secrets this bridge never held: only the field stripping can take them out. */
const UNSEEN = ["tok_unseen_0123456789abcdef", "cred_unseen_0123456789abcdef"];

function settingsWith(extra: Record<string, unknown>): Reply {
  const config = recorded("config");
  return ok({ ...config.data, ...extra });
}

Deno.test("token removal, field stripping: credential-named fields never reach a result or an error", async () => {
  const leaky = {
    leaseToken: UNSEEN[0],
    nested: { credential: UNSEEN[1], items: [{ token: UNSEEN[0], kept: "yes" }] },
  };
  await using rig = toolRig(inOrder(
    settingsWith(leaky),
    daemonError(409, "conflict", "It changed.", {
      details: { leaseToken: UNSEEN[0], operationCredential: UNSEEN[1], reason: "stale" },
    }),
  ));
  // Custody holds nothing here, so the masking layer has nothing to mask with.
  const full = await rig.call("portreeve_settings_get", {});
  const failed = await rig.call("portreeve_settings_get", {});
  assert.equal(full.ok, true, shown(full));
  assert.equal((full.data!.nested as { items: { kept: string }[] }).items[0].kept, "yes");
  assert.equal(failed.ok, false);
  assert.equal((failed.error!.details as { reason?: string }).reason, "stale");
  for (const result of [full, failed]) {
    for (const secret of UNSEEN) assert.ok(!shown(result).includes(secret), shown(result));
    assert.doesNotMatch(shown(result), /"(leaseToken|credential|token|operationCredential)"/);
  }
});

Deno.test("token removal, value masking: a held credential is masked under any name, in results and errors", async () => {
  const acquire = recorded("leaseAcquire");
  const token = acquire.data.leaseToken as string;
  const quoted = `the daemon says ${token} is fine; also ${token.slice(5, 25)}`;
  await using rig = toolRig(inOrder(
    acquire.reply,
    settingsWith({ note: quoted, list: [quoted] }),
    daemonError(409, "conflict", `Lease ${token} conflicts.`, { details: { seen: quoted } }),
  ));
  const leased = await rig.call("portreeve_lease_acquire", RECORDED_ACQUIRE);
  assert.equal(leased.ok, true, shown(leased));
  const read = await rig.call("portreeve_settings_get", {});
  const failed = await rig.call("portreeve_settings_get", {});
  assert.equal(read.ok, true, shown(read));
  assert.match(String(read.data!.note), /^the daemon says .+ is fine/, "the rest stays readable");
  assert.equal(failed.ok, false);
  for (const result of [read, failed]) {
    const text = shown(result);
    // Every 12-character window of the secret is gone.
    for (let i = 0; i + 12 <= token.length; i++) {
      assert.ok(!text.includes(token.slice(i, i + 12)), `window ${i} of the token in ${text}`);
    }
  }
});

const SETTINGS = post(
  "/v1/actions/settings/execute",
  z.looseObject({}),
  consequential(["changes settings"], "changes the daemon's settings"),
);

/** A tool that forgets to ask: it sends a consequential request with no approval proof. */
const forgetful = defineTool({
  name: "portreeve_forgetful",
  title: "Forgetful",
  kind: "mutation",
  description: "Changes a setting without asking anyone.",
  input: z.strictObject({}),
  output: z.looseObject({}),
  routes: [SETTINGS],
  call: (ctx) => mutate(ctx, SETTINGS, {}, { updates: { leaseTtlMilliseconds: 40_000 } }),
});

Deno.test("a gate refusal is kept from the daemon, and a test meeting it names the request", async () => {
  await using rig = toolRig(inOrder(ok({})), { tools: [forgetful] });
  const failed = await rig.call("portreeve_forgetful").then(() => null, (error) => error);
  assert.ok(failed instanceof ToolBug, String(failed));
  assert.match(failed.message, /^portreeve_forgetful answered portreeve_internal, a bridge bug: /);
  assert.match(
    failed.message,
    /GateRefusal: refused to send POST \/v1\/actions\/settings\/execute \(changes the daemon's settings\) with no approval; nothing was sent$/,
  );
  assert.deepEqual(rig.daemon.sent, [], "nothing reached the daemon");
});

/**
 * What an agent must read whole reaches every host whole: for every preview (one per execute,
 * tests/support/question_paths.ts) with long lists of long, hostile evidence, at every result
 * limit a host profile states and at the one a host of no known name gets, the result fits
 * the limit and its `summary` and `nextStep` are the ones the preview wrote, uncut.
 */
Deno.test("a preview's summary and next step reach every host whole, whatever is cut around them", async () => {
  const { byClient, fallback } = hostTreatments();
  const limits = [
    ...new Set([fallback, ...Object.values(byClient)].map((t) => t.resultLimitBytes)),
  ];
  let cut = 0;
  for (const [tool, spec] of Object.entries(CASES)) {
    const g = new Gen(`${tool} summary`);
    for (let run = 0; run < 12; run++) {
      const made = spec.make(g);
      const reply = ok({
        receiptId: g.uuid(),
        action: spec.action,
        target: spec.target(made),
        proposal: made.proposal,
        observed: made.observed,
        expiresAt: "2026-11-30T04:23:00.000Z",
      });
      const preview = tool.replace(/_execute$/, "_preview");
      const whole = await (async () => {
        await using rig = toolRig(() => reply, { resultLimitBytes: 100_000 });
        return await rig.call(preview, made.args);
      })();
      assert.equal(whole.ok, true, JSON.stringify(whole.error));
      assert.doesNotMatch(String(whole.data!.summary), /…\[cut from/, `${tool}: a summary cut`);
      for (const limit of limits) {
        await using rig = toolRig(() => reply, { resultLimitBytes: limit });
        const shown = await rig.call(preview, made.args);
        const first = shown.result.content[0];
        const bytes = new TextEncoder().encode(first?.type === "text" ? first.text : "").length;
        if (JSON.stringify(shown.data) !== JSON.stringify(whole.data)) cut++;
        assert.ok(bytes <= limit, `${tool}: ${bytes} bytes for a host showing ${limit}`);
        assert.equal(shown.data!.summary, whole.data!.summary, `${tool} at ${limit}`);
        assert.equal(shown.data!.nextStep, whole.data!.nextStep, `${tool} at ${limit}`);
      }
    }
  }
  assert.ok(cut > 0, "some evidence was cut around the summary");
});
