/**
 * How each host is configured, run against the fake model, and asked about its connection.
 * Each writes the configuration text `config --host` printed, unchanged, where that host reads
 * it; the suite's own switches (model endpoint, telemetry and update checks off) go through
 * environment variables, command-line overrides or Gemini's system settings file.
 */
import { join } from "node:path";
import { checkCodexAppServer } from "./codex_app_server.ts";
import { anthropic, gemini, openaiResponses } from "./dialects.ts";
import { type Dialect, isRecord } from "./fake_model.ts";
import { parse as parseToml } from "smol-toml";
import { type HostPackage, hostPackage } from "./install.ts";
import type { PrintedConfig, Rig, RunResult } from "./rig.ts";
import { runBounded } from "./rig.ts";
import type { Toolset } from "../../src/shared/options.ts";

export const HOST_RUN_TIMEOUT_MS = 180_000;
export const CHECK_TIMEOUT_MS = 60_000;
export const PROMPT = "Use the portreeve tools as the steps require.";

/** What the host's own connection check said. */
export interface ConnectionCheck {
  command: string;
  connected: boolean;
  output: string;
}

export interface HostAdapter {
  pkg: HostPackage;
  dialect: Dialect;
  /**
   * Whether the host cuts every long tool result to its own budget, keeping head and tail
   * (Codex), so no page size reaches its model whole.
   */
  cutsLongResults: boolean;
  /** The toolsets whose sessions the suite runs for this host (default: every toolset). */
  toolsets?: readonly Toolset[];
  /** How `run` starts the host non-interactively, in words for docs/approval.md. */
  runAs: string;
  /** Where the printed configuration was written, relative to the throwaway home. */
  configFile: string;
  /** Where the host's own setup command writes, when not `configFile`. */
  setupFile?: string;
  /** The portreeve server entry inside the text of the host's configuration file. */
  serverEntry(text: string): unknown;
  /** Writes the printed configuration (and nothing else) into the host's own file. */
  configure(rig: Rig, config: PrintedConfig): Promise<void>;
  /** Runs one non-interactive session against the fake model at `modelUrl`. */
  run(bin: string, rig: Rig, modelUrl: string): Promise<RunResult>;
  /** The host's own connection check; absent where the host has none without a terminal. */
  check?(bin: string, rig: Rig, modelUrl: string): Promise<ConnectionCheck>;
}

/** `mcpServers.portreeve` of a JSON configuration file. */
export function jsonEntry(text: string): unknown {
  const parsed: unknown = JSON.parse(text);
  return isRecord(parsed) && isRecord(parsed.mcpServers) ? parsed.mcpServers.portreeve : null;
}

export async function writeInHome(rig: Rig, relative: string, text: string): Promise<void> {
  const path = join(rig.home, relative);
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, text);
}

export const claudeEnv = (rig: Rig, modelUrl: string) =>
  rig.env({
    CLAUDE_CONFIG_DIR: join(rig.home, ".claude"),
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: "fake-key-for-a-loopback-model",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    MCP_TIMEOUT: "30000",
    // `-p` otherwise sends its first request while servers still connect (on a busy machine,
    // without our tools); waiting keeps every run the same.
    MCP_CONNECTION_NONBLOCKING: "0",
  });

export const claude: HostAdapter = {
  pkg: hostPackage("claude"),
  dialect: anthropic,
  cutsLongResults: false,
  runAs: "`claude -p … --allowedTools 'mcp__portreeve__*'`",
  // With CLAUDE_CONFIG_DIR set, Claude Code keeps its user-scope `.claude.json` there.
  configFile: ".claude/.claude.json",
  serverEntry: jsonEntry,
  configure: (rig, config) => writeInHome(rig, ".claude/.claude.json", config.configuration),
  run: (bin, rig, modelUrl) =>
    runBounded(bin, [
      "-p",
      PROMPT,
      "--allowedTools",
      "mcp__portreeve__*",
      "--output-format",
      "json",
      "--max-turns",
      "30",
    ], { env: claudeEnv(rig, modelUrl), cwd: rig.workdir, timeoutMs: HOST_RUN_TIMEOUT_MS }),
  async check(bin, rig, modelUrl) {
    const result = await runBounded(bin, ["mcp", "list"], {
      env: claudeEnv(rig, modelUrl),
      cwd: rig.workdir,
      timeoutMs: CHECK_TIMEOUT_MS,
    });
    const output = result.stdout + result.stderr;
    const line = output.split("\n").find((text) => text.startsWith("portreeve:")) ?? "";
    return { command: "claude mcp list", connected: /✔ Connected\s*$/.test(line), output };
  },
};

/**
 * Codex switches as `-c` overrides, so config.toml holds only what `config` printed. The model
 * name picks how Codex shows MCP tools: an unknown one gets the classic list.
 */
export function codexOverrides(modelUrl: string, model = "fake-model"): string[] {
  const pairs = [
    `model="${model}"`,
    'model_provider="loopback"',
    'model_providers.loopback.name="loopback fake model"',
    `model_providers.loopback.base_url="${modelUrl}/v1"`,
    'model_providers.loopback.wire_api="responses"',
    'model_providers.loopback.env_key="LOOPBACK_MODEL_KEY"',
    "check_for_update_on_startup=false",
    "analytics.enabled=false",
    "feedback.enabled=false",
  ];
  return pairs.flatMap((pair) => ["-c", pair]);
}

export const codexEnv = (rig: Rig) =>
  rig.env({
    CODEX_HOME: join(rig.home, ".codex"),
    LOOPBACK_MODEL_KEY: "fake-key-for-a-loopback-model",
  });

export const codex: HostAdapter = {
  pkg: hostPackage("codex"),
  dialect: openaiResponses,
  cutsLongResults: true,
  runAs: "`codex exec --dangerously-bypass-approvals-and-sandbox …`",
  configFile: ".codex/config.toml",
  serverEntry: (text) => {
    const parsed: unknown = JSON.parse(JSON.stringify(parseToml(text)));
    return isRecord(parsed) && isRecord(parsed.mcp_servers) ? parsed.mcp_servers.portreeve : null;
  },
  configure: (rig, config) => writeInHome(rig, ".codex/config.toml", `${config.configuration}\n`),
  run: (bin, rig, modelUrl) =>
    runBounded(bin, [
      "exec",
      "--skip-git-repo-check",
      "--dangerously-bypass-approvals-and-sandbox",
      ...codexOverrides(modelUrl),
      PROMPT,
    ], { env: codexEnv(rig), cwd: rig.workdir, timeoutMs: HOST_RUN_TIMEOUT_MS }),
  async check(bin, rig, modelUrl) {
    const result = await checkCodexAppServer(bin, {
      env: codexEnv(rig),
      cwd: rig.workdir,
      timeoutMs: CHECK_TIMEOUT_MS,
      config: codexOverrides(modelUrl),
      tool: "portreeve_health",
      args: {},
    });
    const tools = result.status.tools;
    const toolCount = typeof tools === "object" && tools !== null ? Object.keys(tools).length : 0;
    const connected = result.status.runtimeStatus === "connected" && toolCount > 0 &&
      Array.isArray(result.toolCall.content);
    return {
      command: "codex app-server (mcpServerStatus/list, mcpServer/tool/call)",
      connected,
      output: JSON.stringify({
        runtimeStatus: result.status.runtimeStatus,
        tools: toolCount,
        toolCall: result.toolCall,
      }),
    };
  },
};

/** A named model: with the default "auto", every turn first asks a classifier model to route. */
const GEMINI_MODEL = "gemini-2.5-pro";

/** Gemini's switches live in a system settings file so settings.json stays as printed. */
async function geminiEnv(rig: Rig, modelUrl: string): Promise<Record<string, string>> {
  const system = join(rig.home, "gemini-system-settings.json");
  await Deno.writeTextFile(
    system,
    JSON.stringify({
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
      security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: true } },
      // After some 30 turns it asks a second model whether it loops; the fake cannot answer.
      model: { disableLoopDetection: true },
    }),
  );
  return rig.env({
    GOOGLE_GEMINI_BASE_URL: modelUrl,
    GEMINI_API_KEY: "fake-key-for-a-loopback-model",
    GEMINI_CLI_SYSTEM_SETTINGS_PATH: system,
    GEMINI_TELEMETRY_ENABLED: "false",
  });
}

export const geminiCli: HostAdapter = {
  pkg: hostPackage("gemini"),
  dialect: gemini,
  cutsLongResults: false,
  runAs: "`gemini -p … --yolo`",
  configFile: ".gemini/settings.json",
  serverEntry: jsonEntry,
  async configure(rig, config) {
    await writeInHome(rig, ".gemini/settings.json", config.configuration);
    // Gemini CLI keeps servers disabled in untrusted folders: trust the work folder only.
    await writeInHome(
      rig,
      ".gemini/trustedFolders.json",
      JSON.stringify({ [rig.workdir]: "TRUST_FOLDER" }),
    );
  },
  run: async (bin, rig, modelUrl) =>
    runBounded(bin, ["-p", PROMPT, "--yolo", "--output-format", "json", "-m", GEMINI_MODEL], {
      env: await geminiEnv(rig, modelUrl),
      cwd: rig.workdir,
      timeoutMs: HOST_RUN_TIMEOUT_MS,
    }),
  async check(bin, rig, modelUrl) {
    const result = await runBounded(bin, ["mcp", "list"], {
      env: await geminiEnv(rig, modelUrl),
      cwd: rig.workdir,
      timeoutMs: CHECK_TIMEOUT_MS,
    });
    const output = result.stdout + result.stderr;
    const line = output.split("\n").find((text) => text.includes("portreeve:")) ?? "";
    return { command: "gemini mcp list", connected: /- Connected\s*$/.test(line), output };
  },
};

export const HOSTS: readonly HostAdapter[] = [claude, codex, geminiCli];
