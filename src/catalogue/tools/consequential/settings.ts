/** The receipt pair for the daemon's global settings. */
import { z } from "zod";
import { INPUT_BOUNDS } from "../../../shared/input_bounds.ts";
import { declared, port, uuid } from "../../shapes.ts";
import { settings } from "../../records.ts";
import { executeTool, type Explained, previewReply, previewTool } from "./receipts.ts";
import { executeCheck } from "../../outcome_checks.ts";
import { consequential } from "../../routes.ts";
import {
  counted,
  field,
  type Line,
  portRuns,
  type Section,
  type Words,
  words,
} from "../../question.ts";
import { type Fragment, list, say } from "../../summary.ts";

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

/** A setting value as the agent reads it: ranges as `a–b`, port lists as runs `a–b`. */
export function showSetting(value: unknown): string | number {
  if (typeof value === "number") return value;
  if (value === undefined || value === null) return "unset";
  if (!Array.isArray(value)) return String(value);
  if (isPortList(value)) return portRuns(value).runs.join(", ") || "none";
  return value.map((r) => `${r?.start}–${r?.end}`).join(", ") || "none";
}

const isPortList = (value: unknown): value is number[] =>
  Array.isArray(value) && value.every((v) => Number.isInteger(v));

/** One setting's change, for the agent and for the person. */
export interface SettingChange {
  agent: Fragment;
  lines: Line[];
}

/**
 * One setting's change, or undefined when the value stays the same. A port list reads as the
 * ports it adds and removes, every port named however long the list; any other value as it
 * was and will be (to the person: a number as such, anything else as JSON, so a number and a
 * string never read the same).
 */
export function settingChange(key: string, from: unknown, to: unknown): SettingChange | undefined {
  const name = field(words`name`, key);
  if (isPortList(to) && (from === undefined || isPortList(from))) {
    const before = new Set(from ?? []);
    const after = new Set(to);
    const added = [...after].filter((p) => !before.has(p));
    const removed = [...before].filter((p) => !after.has(p));
    if (added.length === 0 && removed.length === 0) return undefined;
    const runs = (ports: number[]) => portRuns(ports).runs.join(", ");
    return {
      agent: say`${key}: ${
        list([
          ...(added.length > 0 ? [say`add ${runs(added)}`] : []),
          ...(removed.length > 0 ? [say`remove ${runs(removed)}`] : []),
        ], ", ")
      }`,
      lines: [
        name,
        ...(added.length > 0 ? [field(words`ports added`, portRuns(added))] : []),
        ...(removed.length > 0 ? [field(words`ports removed`, portRuns(removed))] : []),
      ],
    };
  }
  if (JSON.stringify(from) === JSON.stringify(to)) return undefined;
  const shown = (value: unknown, label: Words, unset: Words): Line =>
    value === undefined || value === null
      ? unset
      : field(label, typeof value === "number" ? value : JSON.stringify(value));
  return {
    agent: say`${key} ${showSetting(from)} → ${showSetting(to)}`,
    lines: [
      name,
      shown(from, words`from`, words`from (not set)`),
      shown(to, words`to`, words`to (not set)`),
    ],
  };
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
  const n = changes.length;
  return n === 0
    ? {
      effect: say`Leave every setting as it is.`,
      blockers: [],
      asked: { lead: [], sections: [] },
      nothing: "nothing_to_do",
    }
    : {
      effect: say`Change ${list(changes.map((change) => change.agent), "; ")}.`,
      blockers: [],
      asked: {
        lead: [words`The agent asks to change ${counted(n, words`setting`, words`settings`)}.`],
        sections: changes.map((change, i): Section => ({
          name: { one: "setting", many: "settings", index: i + 1 },
          heading: words`Setting ${i + 1} of ${n}`,
          lines: change.lines,
        })),
      },
    };
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
