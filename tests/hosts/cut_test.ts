/**
 * Each host's `resultLimitBytes` (its profile) against the real program: every probe result
 * the model saw whole is at most that many bytes, and every one the host cut or saved to a
 * file was bigger. Hosts that showed our longest page whole (OpenCode) have no probe.
 */
import assert from "node:assert/strict";
import { ALL_HOSTS } from "./all_hosts.ts";
import { cutSession } from "./cut_session.ts";
import { cutOf, utf8Bytes } from "./cuts.ts";

for (const adapter of ALL_HOSTS) {
  const probe = adapter.cutProbe;
  if (probe === undefined) continue;
  const host = adapter.pkg.host;
  Deno.test(`${host}: results up to its resultLimitBytes reach the model whole, longer ones are cut`, async () => {
    const s = await cutSession(adapter, probe);
    const whole = s.shown.filter((shown) => cutOf(shown) === null).map(utf8Bytes);
    const cut = s.shown.map(cutOf).filter((c) => c !== null).map((c) => c.atLeast);
    console.log(
      `${host} ${s.version}: whole ${whole.join(", ")} B; cut (at least) ${cut.join(", ")} B; ` +
        `profile limit ${s.limit} B`,
    );
    assert.ok(whole.length > 0 && cut.length > 0, "the probe brackets the cut");
    assert.ok(Math.max(...whole) <= s.limit, `${host} showed ${Math.max(...whole)} B whole`);
    assert.ok(Math.min(...cut) > s.limit, `${host} cut a result of ${Math.min(...cut)} B`);
  });
}
