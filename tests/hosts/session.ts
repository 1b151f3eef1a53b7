/**
 * One host session per host and toolset, run once and shared by the tests that read it: the
 * printed configuration written into a throwaway home, the host's own connection check, the
 * printed setup command run against the real host CLI, then a non-interactive run in which the
 * fake model walks the scenario and records what the model is shown.
 */
import { join } from "node:path";
import { BUNDLE_ENTRY, call, startBridge } from "../e2e/harness.ts";
import { clientNamesOf } from "../../src/profiles/hosts.ts";
import type { Toolset } from "../../src/shared/options.ts";
import { type RecordedCall, startFakeModel, type Step } from "./fake_model.ts";
import type { ConnectionCheck, HostAdapter } from "./hosts.ts";
import { installedBin } from "./install.ts";
import { sharedRun } from "./shared_run.ts";
import {
  type PrintedConfig,
  printedConfig,
  type Rig,
  runBounded,
  type RunResult,
  startRig,
} from "./rig.ts";

/** What a direct MCP client gets for a call: the two halves a host chooses between. */
export interface Truth {
  text: string;
  structured: Record<string, unknown>;
}

export interface Session {
  host: string;
  toolset: Toolset;
  version: string;
  config: PrintedConfig;
  /** The daemon socket of the session (it appears in the daemon-down error). */
  socket: string;
  /** Our tools as the model was first offered them: name → definition as sent. */
  definitions: Map<string, unknown>;
  /** Tool results the model was shown, indexed like SCENARIO. */
  results: string[];
  /** Everything the host sent to the model API. */
  calls: RecordedCall[];
  /** Raw lease tokens and credentials the daemon handed out during the session. */
  credentials: string[];
  /** Direct-client results for the scenario's deterministic steps (by index). */
  truth: Map<number, Truth>;
  check: ConnectionCheck | null;
  /** The configuration entry the printed setup command made the host write, or null. */
  setupEntry: unknown;
  run: RunResult;
}

export const MISSING_CLAIM = "00000000-0000-4000-8000-000000000000";

/** Indices into SCENARIO, so tests say what they check. */
export const STEP = {
  ports: 0,
  claimsPage: 1,
  claims200: 2,
  history200: 3,
  claims100: 4,
  notFound: 5,
  invalidInput: 6,
  preview: 7,
  acquire: 8,
  abandon: 9,
  daemonDown: 10,
} as const;

/** The tool calls the fake model makes with the full toolset, in order. */
function scenario(rig: Rig, demoClaimId: string): Step[] {
  return [
    { tool: "portreeve_ports_list", args: {} },
    { tool: "portreeve_claims_list", args: { limit: 2 } },
    { tool: "portreeve_claims_list", args: { limit: 200 } },
    { tool: "portreeve_history_list", args: { limit: 200 } },
    { tool: "portreeve_claims_list", args: { limit: 100 } },
    { tool: "portreeve_claim_get", args: { id: MISSING_CLAIM } },
    { tool: "portreeve_claims_list", args: { afterCursor: "not-a-cursor-this-bridge-issued" } },
    { tool: "portreeve_claim_delete_preview", args: { claimId: demoClaimId } },
    {
      tool: "portreeve_lease_acquire",
      args: {
        claim: { project: "hosts", workspaceRoot: join(rig.demoRoot, "leased"), component: "api" },
      },
    },
    {
      tool: "portreeve_lease_abandon",
      // The model copies the handle from what it was shown; a host that hides it fails here.
      args: (results) => ({
        credentialHandle:
          results[STEP.acquire]?.match(/credentialHandle\\?":\\?"([A-Za-z0-9_-]{43})/)
            ?.[1] ?? "handle-not-visible-to-the-model",
        reason: "client-cancelled",
      }),
    },
    // Last: the daemon goes away just before this call.
    { tool: "portreeve_health", args: {}, before: () => rig.sim.close() },
  ];
}

const TRUTH_STEPS = [
  STEP.ports,
  STEP.claimsPage,
  STEP.claims200,
  STEP.notFound,
  STEP.invalidInput,
] as const;

const sessions = new Map<string, Promise<Session>>();

export function session(adapter: HostAdapter, toolset: Toolset): Promise<Session> {
  return sharedRun(sessions, `${adapter.pkg.host}/${toolset}`, () => runSession(adapter, toolset));
}

async function runSession(adapter: HostAdapter, toolset: Toolset): Promise<Session> {
  const bin = await installedBin(adapter.pkg);
  const rig = await startRig();
  try {
    const extra = toolset === "full" ? [] : ["--toolset", toolset];
    const config = await printedConfig(adapter.pkg.host, rig.socket, extra);
    await adapter.configure(rig, config);
    const full = toolset === "full";
    const demoClaimId = [...rig.sim.control.state.claims.values()]
      .find((claim) => claim.project === "demo-stack")?.id;
    if (demoClaimId === undefined) throw new Error("the demo seed made no demo-stack claim");
    const steps = full ? scenario(rig, demoClaimId) : [];
    const clientName = clientNamesOf(adapter.pkg.host)[0];
    const truth = full
      ? await directResults(rig, steps, TRUTH_STEPS, clientName)
      : new Map<number, Truth>();
    const fake = startFakeModel(adapter.dialect, steps);
    try {
      const check = full ? await adapter.check?.(bin, rig, fake.url) ?? null : null;
      const setupEntry = full ? await runSetupCommand(adapter, bin, rig, config) : null;
      const run = await adapter.run(bin, rig, fake.url);
      // The daemon is gone now (the scenario's last step stopped it): the error a direct
      // client gets for the same call is the one the host was given.
      if (full) {
        const down = await directResults(rig, steps, [STEP.daemonDown], clientName);
        truth.set(STEP.daemonDown, down.get(STEP.daemonDown)!);
      }
      const first = fake.firstTurn();
      const last = fake.lastTurn();
      if (first === null || last === null) {
        throw new Error(
          `${adapter.pkg.host} never asked the fake model for a turn with our tools ` +
            `(exit ${run.code}${run.timedOut ? ", timed out" : ""}):\n${tail(run)}`,
        );
      }
      await dump(adapter.pkg.host, toolset, fake.calls, last.results, run);
      return {
        host: adapter.pkg.host,
        toolset,
        version: adapter.pkg.version,
        config,
        socket: rig.socket,
        definitions: first.definitions,
        results: last.results,
        calls: fake.calls,
        credentials: rig.rawCredentials(),
        truth,
        check,
        setupEntry,
        run,
      };
    } finally {
      await fake.close();
    }
  } finally {
    await rig.close();
  }
}

/** With HOSTS_DUMP_DIR set, keeps each session's raw traffic there for a person to read. */
async function dump(
  host: string,
  toolset: string,
  calls: RecordedCall[],
  results: string[],
  run: RunResult,
): Promise<void> {
  const dir = Deno.env.get("HOSTS_DUMP_DIR");
  if (dir === undefined || dir === "") return;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    join(dir, `${host}-${toolset}.json`),
    JSON.stringify({ results, run, calls }, null, 1),
  );
}

function tail(run: RunResult): string {
  return `${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`;
}

/** The same calls through a plain MCP client: what the server really returned. */
async function directResults(
  rig: Rig,
  steps: Step[],
  indices: readonly number[] = TRUTH_STEPS,
  clientName?: string,
): Promise<Map<number, Truth>> {
  // Named as the host names itself, so the bridge fits results to the same limit.
  const bridge = await startBridge({ socketPath: rig.socket, entry: BUNDLE_ENTRY, clientName });
  try {
    const truth = new Map<number, Truth>();
    for (const index of indices) {
      const step = steps[index];
      const args = typeof step.args === "function" ? step.args([]) : step.args;
      const result = await call(bridge, step.tool, args);
      truth.set(index, {
        text: result.text,
        structured: result.envelope as unknown as Record<string, unknown>,
      });
    }
    return truth;
  } finally {
    await bridge.close();
  }
}

/**
 * Runs the printed setup command in a second throwaway home with the real host CLI first on
 * PATH, and returns the server entry the host wrote (null when the host has no command).
 */
async function runSetupCommand(
  adapter: HostAdapter,
  bin: string,
  rig: Rig,
  config: PrintedConfig,
): Promise<unknown> {
  if (config.setupCommand === null) return null;
  const home = join(rig.home, "setup-home");
  await Deno.mkdir(join(home, ".codex"), { recursive: true });
  await Deno.mkdir(join(home, ".claude"), { recursive: true });
  const env = {
    ...rig.env(),
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    CODEX_HOME: join(home, ".codex"),
    PATH: `${join(bin, "..")}:${rig.env().PATH}`,
  };
  const result = await runBounded("bash", ["-c", config.setupCommand], {
    env,
    cwd: home,
    timeoutMs: 60_000,
  });
  if (result.code !== 0) {
    throw new Error(`the printed setup command failed (exit ${result.code}):\n${tail(result)}`);
  }
  const text = await Deno.readTextFile(join(home, adapter.setupFile ?? adapter.configFile));
  return adapter.serverEntry(text);
}
