import assert from "node:assert/strict";
import { groupVerdict, systemAccounts } from "../../../src/shared/private_group.ts";
import { accountsOf, groupCases } from "../../support/accounts.ts";

Deno.test("a group is the user's private group only when the databases show all of it; every other case is named", () => {
  const [me, gid] = [1000, 1000];
  const cases = groupCases(me, gid);
  assert.ok(cases.filter(({ shared }) => shared === null).length >= 4, "private, in its forms");
  for (const { why, database, shared } of cases) {
    const verdict = groupVerdict(gid, me, accountsOf(database));
    assert.equal(verdict.shared, shared, why);
    const named = database.group.listed?.find((line) => line.split(":")[2] === `${gid}`) ??
      database.group.byIdOnly?.find((line) => line.split(":")[2] === `${gid}`);
    const label = named === undefined ? `group ${gid}` : `group ${gid} (${named.split(":")[0]})`;
    assert.equal(verdict.label, label, why);
  }
  const reasons = cases.flatMap(({ shared }) => shared === null ? [] : [shared]);
  assert.equal(new Set(reasons).size, reasons.length, "each reason walked once");
});

/** What `command args` prints, or null when it fails. */
function printed(command: string, args: string[]): string | null {
  const out = new Deno.Command(command, { args, stdout: "piped", stderr: "null" }).outputSync();
  return out.success ? new TextDecoder().decode(out.stdout) : null;
}

Deno.test("the system's databases: getent by id and whole, else the files in /etc", () => {
  for (const db of ["passwd", "group"] as const) {
    assert.equal(systemAccounts(db, 0), printed("getent", [db, "0"]), `${db} 0`);
    assert.match(systemAccounts(db, 0) ?? "", /^root:[^:]*:0:/, `root's ${db} entry`);
    assert.equal(systemAccounts(db), printed("getent", [db]), `every ${db} entry`);
  }
  assert.equal(systemAccounts("group", 2_147_480_000), null, "an id no one has");
  // No getent (macOS): the whole file, when this process may read it (.ci/run scopes reads).
  const readable = Deno.permissions.querySync({ name: "read", path: "/etc/group" }).state;
  assert.equal(
    systemAccounts("group", 0, "/nonexistent/getent"),
    readable === "granted" ? printed("cat", ["/etc/group"]) : null,
  );
});
