/** The receipt pair for the daemon's global settings. */
import { z } from "zod";
import { INPUT_BOUNDS } from "../../../shared/input_bounds.ts";
import { declared, port, settings, uuid } from "../../shapes.ts";
import { executeTool, type Explained, previewReply, previewTool } from "./receipts.ts";
import { executeCheck } from "../../outcome_checks.ts";
import { consequential } from "../../routes.ts";
import { type Fragment, list, say } from "../../question.ts";

const settingsTarget = () => ({ type: "settings", id: "global" });

/** The public runtime settings an update may name; the lists carry the protocol's sizes. */
const SETTING_FIELDS = {
  automaticPortRanges: z.array(z.strictObject({ start: port(), end: port() }))
    .max(INPUT_BOUNDS.automaticPortRanges.max).optional(),
  excludedPorts: z.array(port()).max(INPUT_BOUNDS.excludedPorts.max).optional(),
  leaseTtlMilliseconds: z.int().optional(),
  ephemeralAssignmentTtlMilliseconds: z.int().optional(),
  gracefulShutdownMilliseconds: z.int().optional(),
  historyMaximumEvents: z.int().optional(),
  diagnosticLogMaximumBytes: z.int().optional(),
  diagnosticLogFiles: z.int().optional(),
};
const SETTING_NAMES = Object.keys(SETTING_FIELDS).join(", ");
const settingName = z.enum(Object.keys(SETTING_FIELDS) as [keyof typeof SETTING_FIELDS]);
const changedSettings = z.partialRecord(settingName, z.unknown());

/**
 * Only those settings, closed; value ranges are the daemon's to enforce (it answers with the
 * reason), which keeps the advertised schema close to the anchor's.
 */
const settingsUpdates = z.strictObject(SETTING_FIELDS, {
  error: (issue) =>
    issue.code === "unrecognized_keys"
      ? `unsupported setting(s) ${issue.keys.join(", ")}; only ${SETTING_NAMES} can be changed`
      : undefined,
}).refine((u) => Object.keys(u).length > 0, {
  message: "name at least one setting to change",
  // An unsupported key already says what is wrong; "name one" on top would repeat it.
  when: (payload) => payload.issues.length === 0,
});

/** A setting value as a person reads it: ranges as `a–b`, port lists as runs `a–b`. */
export function showSetting(value: unknown): string | number {
  if (typeof value === "number") return value;
  if (value === undefined || value === null) return "unset";
  if (!Array.isArray(value)) return String(value);
  if (value.every((v) => typeof v === "number")) return portRuns(value) || "none";
  return value.map((r) => `${r?.start}–${r?.end}`).join(", ") || "none";
}

/** `3000–3002, 4000`: the ports, sorted, consecutive ones as one run. */
export function portRuns(ports: readonly number[]): string {
  const sorted = [...new Set(ports)].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    runs.push(j === i ? `${sorted[i]}` : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return runs.join(", ");
}

const isPortList = (value: unknown): value is number[] =>
  Array.isArray(value) && value.every((v) => typeof v === "number");

/**
 * One setting's change, or undefined when the value stays the same. A port list reads as the
 * ports it adds and removes: every port named, however long the list.
 */
export function settingChange(key: string, from: unknown, to: unknown): Fragment | undefined {
  if (isPortList(to) && (from === undefined || isPortList(from))) {
    const before = new Set(from ?? []);
    const after = new Set(to);
    const added = [...after].filter((p) => !before.has(p));
    const removed = [...before].filter((p) => !after.has(p));
    if (added.length === 0 && removed.length === 0) return undefined;
    const parts = [
      ...(added.length > 0 ? [say`add ${portRuns(added)}`] : []),
      ...(removed.length > 0 ? [say`remove ${portRuns(removed)}`] : []),
    ];
    return say`${key}: ${list(parts, ", ")}`;
  }
  if (JSON.stringify(from) === JSON.stringify(to)) return undefined;
  return say`${key} ${showSetting(from)} → ${showSetting(to)}`;
}

function explainSettings(
  { proposal, observed }: {
    proposal: { updates: Record<string, unknown> };
    observed: { current: Record<string, unknown> };
  },
): Explained {
  const changes = Object.entries(proposal.updates)
    .map(([key, to]) => settingChange(key, observed.current[key], to))
    .filter((change) => change !== undefined);
  return changes.length === 0
    ? { effect: say`Leave every setting as it is.`, blockers: [], nothing: "nothing_to_do" }
    : { effect: say`Change ${list(changes, "; ")}.`, blockers: [] };
}

export const settingsUpdatePreview = previewTool({
  name: "portreeve_settings_update_preview",
  execute: "portreeve_settings_update_execute",
  title: "Preview settings update",
  description: "Current and resulting settings.",
  input: z.strictObject({ updates: settingsUpdates }),
  path: "/v1/actions/settings/preview",
  body: ({ updates }) => ({ updates }),
  reply: previewReply(
    z.looseObject({ current: z.record(z.string(), z.unknown()) }),
    z.looseObject({ updates: z.record(z.string(), z.unknown()) }),
  ),
  shown: {
    // `updates` holds only the settings that change: a map of them (its keys declared), not a
    // record, so a setting changed to an empty list is written, never left out.
    proposal: z.object({ updates: changedSettings, proposed: settings }),
    observed: z.object({ current: settings }),
  },
  explain: explainSettings,
  target: settingsTarget,
  // The daemon sends the resulting settings whole; most of them are the current ones.
  view: {
    merged: [{ path: "proposal.proposed", base: "observed.current", changes: "proposal.updates" }],
  },
});

export const settingsUpdateExecute = executeTool({
  name: "portreeve_settings_update_execute",
  action: "settings.update",
  title: "Update settings",
  description: "Apply the settings.",
  input: z.strictObject({ receiptId: uuid() }),
  result: z.object({ settings: declared(settings) }),
  path: "/v1/actions/settings/execute",
  effect: consequential(["changes settings"], "changes the daemon's global settings"),
  check: executeCheck("portreeve_settings_get", ""),
  target: settingsTarget,
});
