/**
 * Agent-facing text never acts on the user's machine: no next step, error message, summary,
 * tool description or server instruction sent to a host proposes starting a process, the
 * simulated daemon, installing anything, or a command at all. People get those (README,
 * doctor, a terminal); an agent is told that a person must act.
 *
 * One walk over every source: each error code's and reason's next step, each message the
 * bridge writes (tests/support/error_samples.ts), the instructions, every tool's title and
 * description, and what a whole session shows — every summary, preview next step (for each
 * way approval can go) and diagnostics guidance, with the daemon up and with it down.
 */
import assert from "node:assert/strict";
import {
  ERROR_CODES,
  nextStepFor,
  OUTCOME_UNKNOWN,
  type Step,
} from "../../src/shared/error_codes.ts";
import { envelopeOf, errorEnvelope } from "../../src/results/result.ts";
import { SERVER_INSTRUCTIONS } from "../../src/catalogue/instructions.ts";
import { ALL_TOOLS } from "../../src/catalogue/index.ts";
import { createBridge } from "../../src/bridge/mod.ts";
import { startSimulator } from "../../src/simulator/mod.ts";
import type { ApprovalMode } from "../../src/shared/options.ts";
import type { HostChannel } from "../../src/shared/host_channel.ts";
import { runResultScenario } from "../support/result_scenario.ts";
import { bridgeErrorSamples } from "../support/error_samples.ts";

/** Advice that acts on the machine, or sends an agent to a command. */
const ADVICE: [string, RegExp][] = [
  ["names Deno or a package manager", /\b(deno|npx|npm|brew|apt-get|pip)\b/i],
  ["names a task or the demo seed", /\btask (simulator|demo|serve|install)\b|--seed-demo/i],
  ["proposes the simulator", /\b(run|start|launch|use|try)\b[^.;]{0,40}\bsimulat/i],
  [
    "spells a PortReeve command",
    /\bportreeve(-mcp)? (start|serve|install|config|doctor)\b/i,
  ],
  ["quotes a command line", /`[^`]*\s[^`]*`/],
  ["changes the system", /\b(ulimit|sudo|chmod|systemctl|launchctl)\b/i],
  ["points the bridge at a socket", /--socket\b|PORTREEVE_SOCKET/],
  [
    "tells the agent to start or stop a process",
    /(^|[.;:!?]\s+|\b(then|or|and|first)\s+)(start|restart|launch|relaunch|spawn|run|install|reinstall|upgrade|update|kill|stop|serve)\s+(the\s+|a\s+|this\s+|it\b|portreeve|daemon|bridge|server|process|simulat|deno)/i,
  ],
];

function advice(text: string): string[] {
  return ADVICE.filter(([, pattern]) => pattern.test(text)).map(([what]) => what);
}

/** Every string under keys agents are meant to act on, anywhere in a result's data. */
function guidanceIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => guidanceIn(item, out));
  else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if ((key === "nextStep" || key === "guidance") && typeof item === "string") out.push(item);
      else guidanceIn(item, out);
    }
  }
  return out;
}

const render = (step: Step, details: Record<string, unknown>) =>
  typeof step === "string" ? step : step(details);

/** What a session shows an agent: summaries, next steps, guidance; errors' steps. */
async function sessionTexts(): Promise<[string, string][]> {
  const texts: [string, string][] = [];
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-agent-text-" }));
  const socketPath = `${dir}/portreeve.sock`;
  const sim = await startSimulator({ socketPath, observeHost: false });
  await Deno.mkdir(`${dir}/ws`);
  await Deno.mkdir(`${dir}/stack`);
  const bridge = createBridge({ socket: { path: socketPath, source: "flag" }, toolset: "full" });
  const services = await bridge.services();
  const call = async (
    tool: string,
    args: Record<string, unknown>,
    approval: ApprovalMode = "auto",
    host: HostChannel = { canAsk: false },
  ) => {
    const ctx = {
      ...services,
      bridge: { ...services.bridge, approval },
      signal: new AbortController().signal,
      host,
    };
    const result = await bridge.catalogue.call(tool, args, ctx);
    const envelope = envelopeOf(result);
    if (envelope.ok) {
      const text = (result as { content: { text: string }[] }).content[0].text;
      texts.push([`${tool} summary`, text.slice(0, text.indexOf("\n"))]);
      for (const step of guidanceIn(envelope.data)) texts.push([`${tool} guidance`, step]);
      return { ok: true, data: envelope.data as Record<string, unknown> };
    }
    texts.push([`${tool} error`, `${envelope.error.message} ${envelope.error.nextStep}`]);
    return { ok: false };
  };
  try {
    await runResultScenario((_seq, tool, args) => call(tool, args), {
      sim,
      workspace: `${dir}/ws`,
      stackRoot: `${dir}/stack`,
    });
    // A preview's next step, for every way its approval can go.
    const asks: HostChannel = { canAsk: true, ask: () => Promise.resolve({ action: "cancel" }) };
    const prune = { olderThanMilliseconds: 0 };
    await call("portreeve_claims_prune_preview", prune, "auto", asks);
    await call("portreeve_claims_prune_preview", prune, "required");
    await call("portreeve_claims_prune_preview", prune, "off");
    // The daemon down: what diagnostics, compatibility and a gated read tell the agent.
    await sim.close();
    for (const tool of ["portreeve_diagnostics", "portreeve_compatibility", "portreeve_health"]) {
      await call(tool, {});
    }
  } finally {
    await bridge.close();
    await sim.close();
    await Deno.remove(dir, { recursive: true });
  }
  return texts;
}

Deno.test("no agent-facing text proposes starting a process, the simulator or a command", async () => {
  const texts: [string, string][] = [];
  for (const [code, entry] of Object.entries(ERROR_CODES)) {
    texts.push([`${code} step`, entry.nextStep]);
    for (const [reason, { nextStep }] of Object.entries(entry.reasons ?? {})) {
      texts.push([`${code}/${reason} step`, render(nextStep, {})]);
    }
  }
  const check = { checkWith: "portreeve_ports_list", checkHow: "to see whether it was" };
  texts.push(["outcome unknown step", render(OUTCOME_UNKNOWN.nextStep, check)]);
  for (const { made, error } of await bridgeErrorSamples()) {
    const envelope = errorEnvelope(error);
    texts.push([`${made} message`, envelope.message], [`${made} step`, envelope.nextStep]);
  }
  texts.push(["server instructions", SERVER_INSTRUCTIONS]);
  for (const tool of ALL_TOOLS) {
    texts.push([`${tool.name} title`, tool.title], [`${tool.name} description`, tool.description]);
  }
  const session = await sessionTexts();
  assert.ok(session.length > 80, `${session.length} texts from the session`);
  texts.push(...session);
  // The walk did reach the daemon-down case.
  const down = session.filter(([where]) => where === "portreeve_health error");
  assert.equal(down.length, 1);
  assert.match(down[0][1], /not answering at .* only a person can start it/);
  assert.equal(down[0][1].includes(nextStepFor("portreeve_unavailable", {})), true);

  const found = texts.flatMap(([where, text]) =>
    advice(text).map((what) => `${where} ${what}: ${text}`)
  );
  assert.deepEqual(found, []);
});

Deno.test("the walk's patterns catch the advice it exists to stop", () => {
  const bad = [
    "Start the PortReeve daemon with `portreeve start`, then retry.",
    "To try this bridge without PortReeve, run the simulated daemon: `deno task simulator --socket /run/p.sock --seed-demo`.",
    "Raise the open-file limit (ulimit -n) and retry.",
    "Point the bridge at the socket with --socket.",
    "Relaunch the bridge with the command config prints.",
    "Update PortReeve or portreeve-mcp, then restart the daemon.",
  ];
  for (const text of bad) assert.notDeepEqual(advice(text), [], text);
  const fine = [
    "Tell the user PortReeve is not running: only a person can start it. Retry this call once they have; start nothing yourself.",
    "Never kill processes or edit files to free a port yourself.",
    "Tell the user this bridge must be relaunched with a grant for its socket.",
  ];
  for (const text of fine) assert.deepEqual(advice(text), [], text);
});
