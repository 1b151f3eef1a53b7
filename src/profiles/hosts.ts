/**
 * The host profiles, imported statically so `deno compile` and `deno bundle` embed them: the
 * confined bridge has no read permission for anything but its socket. To add a host, add a
 * file under `config-profiles/` and one line each below.
 */
import claude from "../../config-profiles/claude.json" with { type: "json" };
import codex from "../../config-profiles/codex.json" with { type: "json" };
import gemini from "../../config-profiles/gemini.json" with { type: "json" };
import generic from "../../config-profiles/generic.json" with { type: "json" };
import opencode from "../../config-profiles/opencode.json" with { type: "json" };
import copilot from "../../config-profiles/copilot.json" with { type: "json" };
import qwen from "../../config-profiles/qwen.json" with { type: "json" };
import cline from "../../config-profiles/cline.json" with { type: "json" };
import vscode from "../../config-profiles/vscode.json" with { type: "json" };
import cursor from "../../config-profiles/cursor.json" with { type: "json" };
import zed from "../../config-profiles/zed.json" with { type: "json" };
import windsurf from "../../config-profiles/windsurf.json" with { type: "json" };
import claudeDesktop from "../../config-profiles/claude-desktop.json" with { type: "json" };
import { type HostProfile, parseProfile } from "./profile.ts";
import type { HostTreatment, HostTreatments } from "../shared/host_treatment.ts";
import { answerWidget } from "./approval_words.ts";

export const HOST_PROFILES: readonly HostProfile[] = [
  parseProfile(claude, "claude.json"),
  parseProfile(codex, "codex.json"),
  parseProfile(gemini, "gemini.json"),
  parseProfile(generic, "generic.json"),
  parseProfile(opencode, "opencode.json"),
  parseProfile(copilot, "copilot.json"),
  parseProfile(qwen, "qwen.json"),
  parseProfile(cline, "cline.json"),
  parseProfile(vscode, "vscode.json"),
  parseProfile(cursor, "cursor.json"),
  parseProfile(zed, "zed.json"),
  parseProfile(windsurf, "windsurf.json"),
  parseProfile(claudeDesktop, "claude-desktop.json"),
];

export const HOST_IDS: readonly string[] = HOST_PROFILES.map((profile) => profile.id);

/**
 * The name each host gives itself (`clientInfo.name`, as the host suite saw it: in MCP's
 * `initialize`, or on the 2026-07-28 era in each request's `_meta`), by profile id: how a
 * running bridge knows which profile is its host's. Matched exactly.
 */
export const MCP_CLIENT_NAMES: Readonly<Record<string, readonly string[]>> = {
  claude: ["claude-code"],
  codex: ["codex-mcp-client"],
  gemini: ["gemini-cli-mcp-client"],
  opencode: ["opencode"],
  copilot: ["copilot-cli"],
  cline: ["@cline/core"],
};

/**
 * Hosts that name themselves after their entry, by profile id: the start of the name, which the
 * entry's name completes, whatever the person called it. Qwen Code names itself
 * "qwen-cli-mcp-client-" + the server's name in its settings.
 */
export const ENTRY_NAMED_CLIENTS: Readonly<Record<string, string>> = {
  qwen: "qwen-cli-mcp-client-",
};

/** The names host `id` gives itself when its entry is called `entry`. */
export function clientNamesOf(id: string, entry = "portreeve"): string[] {
  const named = Object.hasOwn(ENTRY_NAMED_CLIENTS, id) ? [ENTRY_NAMED_CLIENTS[id] + entry] : [];
  return [...(MCP_CLIENT_NAMES[id] ?? []), ...named];
}

/**
 * What `serve` hands the bridge: for each named host, its `resultLimitBytes` and
 * `resultShownAs` (where its limit is not known, what a host of no known name gets), its
 * `flagsToolErrors` and its profile id; for every other host, the smallest limit a profile that
 * shows one copy of the envelope states, and flagged errors, the MCP default. (A limit of what
 * a host shows twice is not comparable: Cline's 8,000 would be about 3,500 of envelope.)
 */
export function hostTreatments(profiles: readonly HostProfile[] = HOST_PROFILES): HostTreatments {
  const once = profiles.filter((p) => (p.resultShownAs ?? "envelope") === "envelope");
  const known = once.flatMap((p) => p.resultLimitBytes === null ? [] : [p.resultLimitBytes]);
  if (known.length === 0) throw new Error("no host profile states a resultLimitBytes");
  const fallback: HostTreatment = {
    resultLimitBytes: Math.min(...known),
    flagsToolErrors: true,
    answerWidget: "unknown",
  };
  const byClient: Record<string, HostTreatment> = {};
  const byEntryNamed: Record<string, HostTreatment> = {};
  for (const profile of profiles) {
    const limit = profile.resultLimitBytes === null
      ? { resultLimitBytes: fallback.resultLimitBytes }
      : { resultLimitBytes: profile.resultLimitBytes, resultShownAs: profile.resultShownAs };
    const treatment: HostTreatment = {
      host: profile.id,
      ...limit,
      flagsToolErrors: profile.flagsToolErrors,
      answerWidget: answerWidget(profile.id),
    };
    for (const name of MCP_CLIENT_NAMES[profile.id] ?? []) {
      byClient[name.toLowerCase()] = treatment;
    }
    if (Object.hasOwn(ENTRY_NAMED_CLIENTS, profile.id)) {
      byEntryNamed[ENTRY_NAMED_CLIENTS[profile.id].toLowerCase()] = treatment;
    }
  }
  return { byClient, byEntryNamed, fallback };
}

export function findHost(id: string): HostProfile | undefined {
  return HOST_PROFILES.find((profile) => profile.id === id);
}

/** The one line that refuses `--host id` when `findHost(id)` found nothing. */
export function unknownHostMessage(id: string): string {
  return `unknown --host ${JSON.stringify(id)}; valid hosts: ${HOST_IDS.join(", ")}`;
}
