/**
 * Results and errors as each host shows them, ours against the reference's, over the bench's
 * session (tests/support/result_scenario.ts, call for call the reference bridge's recorded
 * session). Ours: the real bridge on a fresh simulator, started through the stdio tap so the
 * suite also knows what it returned. The reference's: its recorded results, replayed by the
 * reference server through the same host. Both end with a health call after the daemon went
 * away; ours also pages 200 claims and 200 history entries, to hold every page to the host's cut.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { seedClaim, seeder } from "../e2e/seed.ts";
import { runResultScenario, type StepResult } from "../support/result_scenario.ts";
import { configFor, REFERENCE_SESSION, type Server } from "./context.ts";
import { startDrivenModel } from "./driven_model.ts";
import { isRecord } from "./fake_model.ts";
import { claude, claudeEnv, codex, geminiCli, type HostAdapter } from "./hosts.ts";
import { type HostPackage, installedBin } from "./install.ts";
import { jsonLines, replayed, sessionHeader } from "./reference_server.ts";
import {
  type PrintedConfig,
  type Rig,
  runBounded,
  type RunResult,
  startRig,
  withServerEntry,
} from "./rig.ts";
import { CLAUDE_LATEST } from "./paths.ts";
import { sharedRun } from "./shared_run.ts";

const TAP = fileURLToPath(new URL("./stdio_tap.ts", import.meta.url));
/** About 90 tool calls in one host run. */
const SESSION_TIMEOUT_MS = 900_000;
const PROMPT = "Use the portreeve tools as the steps require.";

/** What a direct client gets: the result's text block, structuredContent and error flag. */
export interface Returned {
  text: string;
  structured: Record<string, unknown> | null;
  isError: boolean;
}

export interface ViewStep {
  /** The reference session's step, or a name for the steps only ours takes. */
  seq: number | string;
  tool: string;
  /** What the model was shown, or null when the host did not offer the tool. */
  shown: string | null;
  /** What the server returned, or null when the host answered the call itself. */
  returned: Returned | null;
}

export interface SessionView {
  path: string;
  server: Server;
  steps: ViewStep[];
  /** Strings of this run to count as the reference's (sockets, folders), longest first. */
  replacements: [string, string][];
  run: RunResult;
}

export interface ViewPath {
  id: string;
  label: string;
  pkg: HostPackage;
  adapter: HostAdapter;
  run(bin: string, rig: Rig, url: string): Promise<RunResult>;
}

export const VIEW_PATHS: readonly ViewPath[] = [
  {
    id: "claude",
    label: `Claude Code ${claude.pkg.version}`,
    pkg: claude.pkg,
    adapter: claude,
    run: (bin, rig, url) =>
      runBounded(bin, [
        "-p",
        PROMPT,
        "--allowedTools",
        "mcp__portreeve__*",
        "--max-turns",
        "200",
      ], { env: claudeEnv(rig, url), cwd: rig.workdir, timeoutMs: SESSION_TIMEOUT_MS }),
  },
  {
    id: "claude-latest",
    label: `Claude Code ${CLAUDE_LATEST.version}`,
    pkg: CLAUDE_LATEST,
    adapter: claude,
    // Tool search off, so every tool is callable at once: results are shown the same either way.
    run: (bin, rig, url) =>
      runBounded(bin, [
        "-p",
        PROMPT,
        "--allowedTools",
        "mcp__portreeve__*",
        "--max-turns",
        "200",
      ], {
        env: { ...claudeEnv(rig, url), ENABLE_TOOL_SEARCH: "false" },
        cwd: rig.workdir,
        timeoutMs: SESSION_TIMEOUT_MS,
      }),
  },
  {
    id: "codex",
    label: `Codex ${codex.pkg.version} classic`,
    pkg: codex.pkg,
    adapter: codex,
    run: (bin, rig, url) => codex.run(bin, rig, url),
  },
  {
    id: "gemini",
    label: `Gemini CLI ${geminiCli.pkg.version}`,
    pkg: geminiCli.pkg,
    adapter: geminiCli,
    run: (bin, rig, url) => geminiCli.run(bin, rig, url),
  },
];

const lines = await Deno.readTextFile(REFERENCE_SESSION);
export const REFERENCE = {
  header: sessionHeader.parse(JSON.parse(lines.split("\n")[0])),
  calls: jsonLines(lines, replayed),
};

const views = new Map<string, Promise<SessionView>>();

export function sessionView(path: ViewPath, server: Server): Promise<SessionView> {
  return sharedRun(views, `${path.id}/${server}`, () => runView(path, server));
}

/**
 * The entry's command started through the tap; Codex's marked `required`,
 * since Codex sends its first request whether or not the server has listed its tools, and a
 * required server it waits for.
 */
function entryFor(config: PrintedConfig, tapLog: string): PrintedConfig {
  const entry = tapped(config, tapLog);
  const required: { command: string; args: string[]; required?: boolean } = {
    ...entry,
    ...(config.host === "codex" ? { required: true } : {}),
  };
  return withServerEntry(config, required);
}

/** The command and args of the configuration's `portreeve` entry, as written. */
function serverEntry(config: PrintedConfig): { command: string; args: string[] } {
  const entry = config.host === "codex"
    ? codex.serverEntry(config.configuration)
    : isRecord(JSON.parse(config.configuration))
    ? (JSON.parse(config.configuration) as { mcpServers?: { portreeve?: unknown } }).mcpServers
      ?.portreeve
    : null;
  const parsed = z.object({ command: z.string(), args: z.array(z.string()) }).parse(entry);
  return { command: parsed.command, args: parsed.args };
}

async function runView(path: ViewPath, server: Server): Promise<SessionView> {
  const bin = await installedBin(path.pkg);
  const rig = await startRig({ seed: false });
  try {
    const host = path.adapter.pkg.host;
    const tapLog = join(rig.home, "tap.jsonl");
    // The reference bridge has no approval step; ours runs as it would in its place.
    const config = await configFor(host, rig.socket, server, {
      replay: true,
      extra: ["--approval", "off"],
    });
    await path.adapter.configure(rig, entryFor(config, tapLog));
    const model = startDrivenModel(path.adapter.dialect);
    try {
      const running = path.run(bin, rig, model.url).then((run) => {
        model.abort(
          new Error(
            `${path.label} ended (exit ${run.code}) before the session did:\n` +
              `${run.stdout.slice(-1500)}\n${run.stderr.slice(-1500)}`,
          ),
        );
        return run;
      });
      let steps: ViewStep[];
      try {
        steps = server === "ours"
          ? await oursSession(rig, tapLog, model.call)
          : await referenceSession(tapLog, model.call);
      } finally {
        // The model says it is done, so the host ends whatever happened.
        model.finish();
      }
      const run = await running;
      return {
        path: path.id,
        server,
        steps,
        replacements: server === "ours"
          ? [
            [await Deno.realPath(join(rig.demoRoot, "s")), REFERENCE.header.stackRoot],
            [await Deno.realPath(join(rig.demoRoot, "w")), REFERENCE.header.workspace],
            [rig.socket, "<socket>"],
          ]
          : [
            [REFERENCE.header.daemonDownSocketPath, "<socket>"],
            [REFERENCE.header.socketPath, "<socket>"],
          ],
        run,
      };
    } finally {
      await model.close();
    }
  } finally {
    await rig.close();
  }
}

type Call = (tool: string, args: Record<string, unknown>) => Promise<string | null>;

async function referenceSession(tapLog: string, call: Call): Promise<ViewStep[]> {
  const steps: ViewStep[] = [];
  let calls = 0;
  for (const recorded of REFERENCE.calls) {
    const shown = await call(recorded.tool, recorded.arguments);
    const returned = shown === null ? null : await reply(tapLog, calls);
    if (returned !== null) calls++;
    steps.push({ seq: recorded.seq, tool: recorded.tool, shown, returned });
  }
  return steps;
}

async function oursSession(rig: Rig, tapLog: string, call: Call): Promise<ViewStep[]> {
  const steps: ViewStep[] = [];
  let calls = 0;
  const step = async (seq: number | string, tool: string, args: Record<string, unknown>) => {
    const shown = await call(tool, args);
    if (shown === null) throw new Error(`the host does not offer our ${tool}`);
    const returned = await reply(tapLog, calls);
    if (returned !== null) calls++;
    steps.push({ seq, tool, shown, returned });
    return returned;
  };
  // Folders of the reference session's lengths' kind: their names count as the reference's.
  const workspace = join(rig.demoRoot, "w");
  const stackRoot = join(rig.demoRoot, "s");
  await Deno.mkdir(workspace);
  await Deno.mkdir(stackRoot);
  await runResultScenario(async (seq, tool, args): Promise<StepResult> => {
    const returned = await step(seq, tool, args);
    const ok = returned !== null && !returned.isError && returned.structured?.ok === true;
    const data = returned?.structured?.data;
    return { ok, data: ok && isRecord(data) ? data : undefined };
  }, {
    sim: rig.sim,
    workspace: await Deno.realPath(workspace),
    stackRoot: await Deno.realPath(stackRoot),
  });
  // The largest pages a session asks for: every one must fit the host's cut.
  const seed = seeder(rig.socket);
  try {
    for (let i = 0; i < 200; i++) {
      await seedClaim(
        seed,
        "bulk",
        await Deno.realPath(workspace),
        `svc-${String(i).padStart(3, "0")}`,
      );
    }
  } finally {
    seed.close();
  }
  await step("claims-200", "portreeve_claims_list", { limit: 200 });
  await step("history-200", "portreeve_history_list", { limit: 200 });
  await rig.sim.close();
  await step("daemon-down", "portreeve_health", {});
  return steps;
}

/**
 * The command started through the tap, which logs each frame before passing it on: once the
 * model is shown a result, its frame is in the log.
 */
function tapped(config: PrintedConfig, tapLog: string): { command: string; args: string[] } {
  const { command, args } = serverEntry(config);
  return throughTap(tapLog, command, args);
}

/** `command args…` started through the tap, which logs each frame to `tapLog`. */
export function throughTap(
  tapLog: string,
  command: string,
  args: readonly string[],
): { command: string; args: string[] } {
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--allow-run",
      `--allow-write=${tapLog}`,
      "--no-prompt",
      "--quiet",
      TAP,
      tapLog,
      command,
      ...args,
    ],
  };
}

const tapLine = z.object({ from: z.enum(["host", "server"]), frame: z.string() });
const callReply = z.object({
  result: z.object({
    content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
    structuredContent: z.record(z.string(), z.unknown()).optional(),
    isError: z.boolean().optional(),
  }),
});

/**
 * The bridge's reply to the host's `index`-th tools/call, from the tap's log, or null when the
 * host never sent it (it refused the arguments itself). Read once the model was shown the
 * result: by then a call the host made is in the log, and so is its reply.
 */
export async function reply(tapLog: string, index: number): Promise<Returned | null> {
  const frames = (await Deno.readTextFile(tapLog)).split("\n").filter((line) => line !== "")
    .map((line) => tapLine.parse(JSON.parse(line)))
    .map(({ from, frame }) => ({ from, message: JSON.parse(frame) as unknown }));
  const calls = frames.filter((f) =>
    f.from === "host" && isRecord(f.message) && f.message.method === "tools/call"
  );
  if (calls.length <= index) return null;
  const request = calls[index].message;
  const answer = frames.find((f) =>
    f.from === "server" && isRecord(f.message) && isRecord(request) &&
    f.message.id === request.id && "result" in f.message
  );
  if (answer === undefined) throw new Error(`no reply to tools/call #${index} in the tap's log`);
  const { result } = callReply.parse(answer.message);
  return {
    text: result.content.map((part) => part.text ?? "").join("\n"),
    structured: result.structuredContent ?? null,
    isError: result.isError === true,
  };
}
