/**
 * The compact result form, declared once as data: what an absent field means. Everything else
 * derives from this list: the compactor (./compactor.ts) leaves a field out only where its
 * rule gives the value back, the server instructions state the rules in one paragraph
 * (`rulesParagraph`), the output schemas note each rule at its field (../describe.ts),
 * docs/compact-results.md lists them (`deno task gen`), and the round-trip test expands
 * results by them alone (tests/support/expand.ts).
 *
 * A rule names a field and says what its absence means, using nothing but the record that
 * holds it, the record that one sits in, the result's process table, or this bridge's own
 * origin: never another item of a list. A field no rule names is null, [] or {} when absent
 * (by its declared type).
 *
 * A leaf module: the server states the rules at start-up, before anything else loads.
 */
import type { JsonValue } from "../../shared/json.ts";

/**
 * A value built from fields of the same record: `{ $: "name" }` stands for that field,
 * `{ $: "name", prefix }` for the text `prefix` followed by it, `{ $: "name", plusMs }` for that
 * timestamp moved on by `plusMs` milliseconds, and `{ $latest: [names] }` for
 * the latest of those timestamps the record has (null ones left aside; with none of them the
 * field is written).
 */
export type Template =
  | { $: string; prefix?: string; plusMs?: number }
  | { $latest: string[] }
  | Template[]
  | { [key: string]: Template }
  | JsonValue;

export type Rule =
  /** Absent = this value. */
  | { kind: "fixed"; field: string; value: JsonValue }
  /** Absent = this template, filled from the same record (a copy of one field, or a shape). */
  | { kind: "same"; field: string; as: Template }
  /** Absent = `eventType` without its last `.part`, dots as dashes. */
  | { kind: "eventEntity"; field: string; from: string }
  /** Absent = the parent's own id of that name: the port a port entry (or reclaim) is about. */
  | { kind: "parent"; field: string }
  /** Absent = the result's process table entry for the record's `by` field (null if none). */
  | { kind: "process"; field: string; by: string }
  /** Absent = the origin this bridge stamps on its requests (stated with its value). */
  | { kind: "ownOrigin"; field: string };

/** The result's table of process fingerprints, by pid; elsewhere a fingerprint is `{pid}`. */
export const PROCESS_TABLE = {
  key: "processes",
  by: "pid",
  /** A fingerprint's fields: a record of exactly these is one (see shapes.processFingerprint). */
  fields: ["pid", "parentPid", "uid", "startTime", "executable", "command", "workingDirectory"],
} as const;

/** In the order an expander restores them: a rule may read a field an earlier one restored. */
export const RULES: readonly Rule[] = [
  { kind: "fixed", field: "transport", value: "tcp" },
  { kind: "fixed", field: "mode", value: "sticky" },
  { kind: "fixed", field: "bindingKind", value: "process" },
  { kind: "fixed", field: "required", value: true },
  { kind: "fixed", field: "publish", value: true },
  { kind: "fixed", field: "host", value: "127.0.0.1" },
  { kind: "fixed", field: "version", value: 1 },
  { kind: "fixed", field: "executionMode", value: "finite" },
  { kind: "fixed", field: "degraded", value: false },
  { kind: "parent", field: "port" },
  { kind: "process", field: "process", by: "pid" },
  { kind: "process", field: "rootFingerprint", by: "rootPid" },
  { kind: "eventEntity", field: "entityType", from: "eventType" },
  { kind: "ownOrigin", field: "origin" },
  { kind: "same", field: "service", as: { $: "component" } },
  { kind: "same", field: "updatedAt", as: { $latest: ["createdAt", "confirmedAt", "endedAt"] } },
  { kind: "same", field: "lastUsedAt", as: { $: "updatedAt" } },
  { kind: "same", field: "assignedPort", as: { $: "preferredPort" } },
  { kind: "same", field: "renewedAt", as: { $: "startedAt" } },
  // A launcher operation's deadline is 30 s after its last begin or renew (protocol v1).
  { kind: "same", field: "deadlineAt", as: { $: "renewedAt", plusMs: 30_000 } },
  {
    kind: "same",
    field: "confirmedListenerFingerprints",
    as: [{ fingerprint: { $: "rootFingerprint" }, observedAt: { $: "confirmedAt" } }],
  },
  { kind: "same", field: "names", as: [{ $: "port", prefix: "127.0.0.1:" }] },
  {
    kind: "same",
    field: "ownership",
    as: { verified: true, reason: "verified", lineage: [{ $: "pid" }] },
  },
];

/** Fields written even when empty: a model looks for them. */
export const ALWAYS_WRITTEN: ReadonlySet<string> = new Set([
  "items",
  "blockers",
  "missingCapabilities",
]);

const BY_FIELD = new Map(RULES.map((rule) => [rule.field, rule]));

export function ruleFor(field: string): Rule | undefined {
  return BY_FIELD.get(field);
}

/** `stack.activation.ended` → `stack-activation`; undefined when there is no `.part`. */
export function eventEntity(eventType: unknown): string | undefined {
  if (typeof eventType !== "string" || !eventType.includes(".")) return undefined;
  return eventType.slice(0, eventType.lastIndexOf(".")).replaceAll(".", "-");
}

/** Whether a template part stands for a field (`{ $: "name" }`). */
export function isFieldRef(
  template: Template,
): template is { $: string; prefix?: string; plusMs?: number } {
  return typeof template === "object" && template !== null && !Array.isArray(template) &&
    typeof (template as { $?: unknown }).$ === "string";
}

export function isLatestRef(template: Template): template is { $latest: string[] } {
  return typeof template === "object" && template !== null && !Array.isArray(template) &&
    Array.isArray((template as { $latest?: unknown }).$latest);
}

/** The latest of the named timestamps `record` holds (undefined when it holds none). */
export function latestOf(names: readonly string[], record: Record<string, unknown>): unknown {
  const times = names.map((name) => record[name]).filter((at): at is string =>
    typeof at === "string" && !Number.isNaN(Date.parse(at))
  );
  return times.sort((a, b) => Date.parse(b) - Date.parse(a))[0];
}

/** A template as words: `[{fingerprint: rootFingerprint, observedAt: confirmedAt}]`. */
function templateText(template: Template): string {
  if (Array.isArray(template)) return `[${template.map(templateText).join(", ")}]`;
  if (isLatestRef(template)) return `the latest of ${joined(template.$latest)}`;
  if (isFieldRef(template)) {
    if (template.plusMs !== undefined) return `${template.$} + ${template.plusMs / 1000} s`;
    return template.prefix === undefined ? template.$ : `"${template.prefix}"+${template.$}`;
  }
  if (typeof template === "object" && template !== null) {
    const entries = Object.entries(template as Record<string, Template>);
    return `{${entries.map(([key, value]) => `${key}: ${templateText(value)}`).join(", ")}}`;
  }
  return JSON.stringify(template);
}

/** One rule as the instructions and the schema notes state it. */
function ruleText(rule: Rule, origin?: JsonValue): string {
  switch (rule.kind) {
    case "fixed":
      return `${rule.field} ${JSON.stringify(rule.value)}`;
    case "same":
      return `${rule.field} = ${templateText(rule.as)}`;
    case "eventEntity":
      return `${rule.field} = ${rule.from} minus its last ".part", dots as dashes`;
    case "parent":
      return `a nested record's ${rule.field} = the port its parent is about`;
    case "process":
      return `${rule.field} = data.${PROCESS_TABLE.key}[${rule.by}] (null if none)`;
    case "ownOrigin":
      return `${rule.field} = ${
        origin === undefined ? "this bridge's origin" : JSON.stringify(origin)
      }`;
  }
}

/** What a field's absence means, without the field's name (`"tcp"`, `= component`). */
export function absentMeaning(rule: Rule): string {
  switch (rule.kind) {
    case "fixed":
      return JSON.stringify(rule.value);
    case "parent":
      return `= the parent record's ${rule.field}`;
    case "ownOrigin":
      return "= this bridge's origin (the instructions give it)";
    default:
      return ruleText(rule).slice(rule.field.length + 1);
  }
}

/** What a field's absence means, as its output schema notes it at the field. */
export function fieldNote(rule: Rule): string {
  return `absent: ${absentMeaning(rule)}`;
}

/** Fields joined for reading: `a, b and c`. */
function joined(parts: string[]): string {
  return parts.length < 2 ? parts.join("") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}

/**
 * The rules in one paragraph, for the server instructions. `origin` is this bridge's own,
 * which an event without `origin` came from.
 */
export function rulesParagraph(origin: JsonValue): string {
  const of = <K extends Rule["kind"]>(kind: K) =>
    RULES.filter((rule): rule is Extract<Rule, { kind: K }> => rule.kind === kind);
  // Fixed values, fields sharing a value named together: `required and publish true`.
  const byValue = new Map<string, string[]>();
  for (const rule of of("fixed")) {
    const value = JSON.stringify(rule.value);
    byValue.set(value, [...(byValue.get(value) ?? []), rule.field]);
  }
  const fixed = [...byValue].map(([value, fields]) => `${joined(fields)} ${value}`);
  const derived = [...of("same"), ...of("eventEntity")].map((rule) => ruleText(rule));
  const parent = `in a nested record ${
    joined(of("parent").map((r) => r.field))
  } = the port its parent is about`;
  const processes = of("process");
  const table = `data.${PROCESS_TABLE.key}`;
  return 'Compact results (detail:"full" gives whole records): absent = null, [] or {}, but ' +
    `${fixed.join(", ")}; ${derived.join(", ")}; ${parent}; ` +
    `${joined(processes.map((r) => r.field))} = ${table}[${
      processes.map((r) => r.by).join("/")
    }] (or null), and a fingerprint {${PROCESS_TABLE.by}} is ${table}[${PROCESS_TABLE.by}]; ` +
    `${of("ownOrigin").map((rule) => ruleText(rule, origin)).join("; ")}, this bridge.`;
}

/** The ISO timestamp `ms` milliseconds after `at`; undefined when `at` is not a timestamp. */
export function shiftedTime(at: unknown, ms: number): string | undefined {
  const time = typeof at === "string" ? Date.parse(at) : NaN;
  return Number.isNaN(time) ? undefined : new Date(time + ms).toISOString();
}
