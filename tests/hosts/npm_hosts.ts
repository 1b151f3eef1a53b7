/**
 * The hosts beside the first three that npm ships: OpenCode, GitHub Copilot CLI, Qwen Code
 * and Cline. Each writes the configuration `config --host` printed, unchanged, where the host
 * reads it, and points the host's model at the loopback fake through its own switches for a
 * custom OpenAI-compatible endpoint (Chat Completions), so no account is needed.
 */
import { join } from "node:path";
import { openaiChat } from "./chat_completions.ts";
import { deferredChat } from "./deferred_chat.ts";
import { isRecord } from "./fake_model.ts";
import {
  CHECK_TIMEOUT_MS,
  type ConnectionCheck,
  HOST_RUN_TIMEOUT_MS,
  type HostAdapter,
  jsonEntry,
  PROMPT,
  writeInHome,
} from "./hosts.ts";
import { hostPackage } from "./install.ts";
import { type Rig, runBounded } from "./rig.ts";

/** The model name every host is told to use; the fake answers to any. */
const MODEL = "fake-model";
const API_KEY = "fake-key-for-a-loopback-model";

/** The first line of a connection check's output that names our server. */
function serverLine(output: string, pattern: RegExp = /portreeve/): string {
  return output.split("\n").find((line) => pattern.test(line)) ?? "";
}

/** OpenCode's own settings for the run, passed as extra configuration in its environment. */
function opencodeEnv(rig: Rig, modelUrl: string): Record<string, string> {
  const settings = {
    autoupdate: false,
    share: "disabled",
    model: `loopback/${MODEL}`,
    provider: {
      loopback: {
        // Bundled inside OpenCode: naming another package would send it to the registry.
        npm: "@ai-sdk/openai-compatible",
        name: "loopback fake model",
        options: { baseURL: `${modelUrl}/v1`, apiKey: API_KEY },
        models: { [MODEL]: { name: "fake model", tool_call: true } },
      },
    },
  };
  return rig.env({
    OPENCODE_CONFIG_CONTENT: JSON.stringify(settings),
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
  });
}

export const opencode: HostAdapter = {
  pkg: hostPackage("opencode"),
  dialect: openaiChat,
  cutsLongResults: false,
  toolsets: ["full"],
  runAs: "`opencode run --auto …`",
  configFile: ".config/opencode/opencode.json",
  setupFile: ".config/opencode/opencode.jsonc",
  serverEntry: (text) => {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) && isRecord(parsed.mcp) ? parsed.mcp.portreeve : null;
  },
  configure: (rig, config) =>
    writeInHome(rig, ".config/opencode/opencode.json", config.configuration),
  run: (bin, rig, modelUrl) =>
    runBounded(bin, ["run", "--pure", "--auto", "--format", "json", PROMPT], {
      env: opencodeEnv(rig, modelUrl),
      cwd: rig.workdir,
      timeoutMs: HOST_RUN_TIMEOUT_MS,
    }),
  async check(bin, rig, modelUrl): Promise<ConnectionCheck> {
    const result = await runBounded(bin, ["mcp", "list", "--pure"], {
      env: opencodeEnv(rig, modelUrl),
      cwd: rig.workdir,
      timeoutMs: CHECK_TIMEOUT_MS,
    });
    const output = result.stdout + result.stderr;
    return {
      command: "opencode mcp list",
      connected: /✓ portreeve\b.*connected/.test(serverLine(output)),
      output,
    };
  },
};

/** Copilot CLI's custom-provider (BYOK) switches: no GitHub account, no network but loopback. */
function copilotEnv(rig: Rig, modelUrl: string): Record<string, string> {
  return rig.env({
    COPILOT_HOME: join(rig.home, ".copilot"),
    COPILOT_OFFLINE: "true",
    COPILOT_AUTO_UPDATE: "false",
    COPILOT_PROVIDER_BASE_URL: `${modelUrl}/v1`,
    COPILOT_PROVIDER_TYPE: "openai",
    COPILOT_PROVIDER_WIRE_API: "completions",
    COPILOT_PROVIDER_API_KEY: API_KEY,
    COPILOT_MODEL: MODEL,
  });
}

export const copilot: HostAdapter = {
  pkg: hostPackage("copilot"),
  dialect: openaiChat,
  cutsLongResults: false,
  toolsets: ["full"],
  runAs: "`copilot -p … --allow-all-tools`",
  configFile: ".copilot/mcp-config.json",
  serverEntry: jsonEntry,
  configure: (rig, config) => writeInHome(rig, ".copilot/mcp-config.json", config.configuration),
  run: (bin, rig, modelUrl) =>
    runBounded(bin, [
      "-p",
      PROMPT,
      "--allow-all-tools",
      "--disable-client-telemetry",
      "--no-auto-update",
      "--output-format",
      "json",
    ], { env: copilotEnv(rig, modelUrl), cwd: rig.workdir, timeoutMs: HOST_RUN_TIMEOUT_MS }),
  async check(bin, rig, modelUrl): Promise<ConnectionCheck> {
    const result = await runBounded(bin, ["mcp", "list"], {
      env: copilotEnv(rig, modelUrl),
      cwd: rig.workdir,
      timeoutMs: CHECK_TIMEOUT_MS,
    });
    const output = result.stdout + result.stderr;
    return { command: "copilot mcp list", connected: /portreeve/.test(output), output };
  },
};

/** Qwen Code's OpenAI-compatible switches (its `openai` auth type). */
function qwenEnv(rig: Rig, modelUrl: string): Record<string, string> {
  return rig.env({
    OPENAI_BASE_URL: `${modelUrl}/v1`,
    OPENAI_API_KEY: API_KEY,
    OPENAI_MODEL: MODEL,
  });
}

export const qwen: HostAdapter = {
  pkg: hostPackage("qwen"),
  // Qwen Code defers every MCP tool behind its tool_search and tool_call.
  dialect: deferredChat,
  cutsLongResults: false,
  toolsets: ["full"],
  runAs: "`qwen -p … --yolo`",
  configFile: ".qwen/settings.json",
  serverEntry: jsonEntry,
  configure: (rig, config) => writeInHome(rig, ".qwen/settings.json", config.configuration),
  run: (bin, rig, modelUrl) =>
    runBounded(bin, [
      "-p",
      PROMPT,
      "--yolo",
      "--auth-type",
      "openai",
      "-m",
      MODEL,
      "--output-format",
      "json",
    ], { env: qwenEnv(rig, modelUrl), cwd: rig.workdir, timeoutMs: HOST_RUN_TIMEOUT_MS }),
  async check(bin, rig, modelUrl): Promise<ConnectionCheck> {
    const result = await runBounded(bin, ["mcp", "list"], {
      env: qwenEnv(rig, modelUrl),
      cwd: rig.workdir,
      timeoutMs: CHECK_TIMEOUT_MS,
    });
    const output = result.stdout + result.stderr;
    return {
      command: "qwen mcp list",
      connected: /- Connected\b/.test(serverLine(output, /portreeve:/)),
      output,
    };
  },
};

/** Cline keeps its provider in its own settings; `cline auth` writes them before each run. */
async function clineAuth(bin: string, rig: Rig, modelUrl: string): Promise<void> {
  const result = await runBounded(bin, [
    "auth",
    "-p",
    "openai",
    "-k",
    API_KEY,
    "-b",
    `${modelUrl}/v1`,
    "-m",
    MODEL,
  ], { env: rig.env(), cwd: rig.workdir, timeoutMs: CHECK_TIMEOUT_MS });
  if (result.code !== 0) throw new Error(`cline auth failed: ${result.stderr.slice(-1000)}`);
}

export const cline: HostAdapter = {
  pkg: hostPackage("cline"),
  dialect: openaiChat,
  // Cline shows the whole raw result as JSON and keeps the head and tail of one over 8,000
  // characters; the bridge fits its pages to that (its profile's resultShownAs), so they arrive
  // whole.
  cutsLongResults: false,
  toolsets: ["full"],
  runAs: "`cline … --auto-approve true`",
  configFile: ".cline/data/settings/cline_mcp_settings.json",
  serverEntry: (text) => {
    const entry = jsonEntry(text);
    // `cline mcp add` writes the command inside a `transport` object.
    return isRecord(entry) && isRecord(entry.transport) ? entry.transport : entry;
  },
  configure: (rig, config) =>
    writeInHome(rig, ".cline/data/settings/cline_mcp_settings.json", config.configuration),
  async run(bin, rig, modelUrl) {
    await clineAuth(bin, rig, modelUrl);
    return runBounded(bin, [PROMPT, "--json", "--auto-approve", "true"], {
      env: rig.env(),
      cwd: rig.workdir,
      timeoutMs: HOST_RUN_TIMEOUT_MS,
    });
  },
  // Cline's CLI has no connection check outside its terminal interface.
};

export const NPM_HOSTS: readonly HostAdapter[] = [opencode, copilot, qwen, cline];
