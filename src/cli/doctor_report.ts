/**
 * What `doctor` prints: a checklist, one verdict and the next steps. The checks add lines;
 * the verdict is the gravest any check gave, and the next steps are each failing check's own,
 * in the order found.
 */
import type { CommandIO } from "./options.ts";

export const DOCTOR_EXIT = {
  ok: 0,
  usage: 2,
  unavailable: 3,
  incompatible: 4,
  misconfigured: 5,
  /** `--host NAME`: the host has no portreeve entry. */
  missing: 6,
} as const;

export type Verdict = Exclude<keyof typeof DOCTOR_EXIT, "usage">;
type Status = "ok" | "fail" | "warn" | "info";

export interface Check {
  status: Status;
  label: string;
  detail: string;
}

const MARK: Record<Status, string> = {
  ok: "[ok]  ",
  fail: "[FAIL]",
  warn: "[warn]",
  info: "[--]  ",
};

/** Gravest first: what stops everything before what one more step fixes. */
const GRAVITY: readonly Verdict[] = [
  "misconfigured",
  "incompatible",
  "unavailable",
  "missing",
  "ok",
];

export class Report {
  readonly checks: Check[] = [];
  verdict: Verdict = "ok";
  readonly next: string[] = [];

  /** Adds a line; returned so a later finding can change its status. */
  add(status: Status, label: string, detail: string): Check {
    const check = { status, label, detail };
    this.checks.push(check);
    return check;
  }

  /** A failing check's verdict and what to do about it. */
  needs(verdict: Verdict, next: string): void {
    if (GRAVITY.indexOf(verdict) < GRAVITY.indexOf(this.verdict)) this.verdict = verdict;
    if (!this.next.includes(next)) this.next.push(next);
  }

  print(io: CommandIO, json: boolean, whenOk: string): void {
    const next = this.next.length > 0 ? this.next.join(" ") : whenOk;
    if (json) {
      const { checks, verdict } = this;
      io.stdout(JSON.stringify({ version: 1, verdict, next, checks }) + "\n");
      return;
    }
    const lines = this.checks.map((c) => `${MARK[c.status]} ${c.label}: ${c.detail}`);
    io.stdout(`${lines.join("\n")}\n\nVerdict: ${this.verdict.toUpperCase()}. ${next}\n`);
  }
}
