/**
 * Each host's result limit: every profile states one (a number, or null where none is known),
 * `serve` hands the bridge those of the hosts it knows by name, and any other host gets the
 * smallest a profile states — so a page is never larger than its host shows whole.
 */
import assert from "node:assert/strict";
import {
  HOST_PROFILES,
  MCP_CLIENT_NAMES,
  parseProfile,
  resultLimits,
} from "../../../src/profiles/mod.ts";
import { resultLimitFor } from "../../../src/shared/result_limits.ts";
import { SMALLEST_RESULT_BYTES } from "../../../src/results/pagination.ts";
import codex from "../../../config-profiles/codex.json" with { type: "json" };

Deno.test("every profile states resultLimitBytes; a profile without it is refused", () => {
  for (const profile of HOST_PROFILES) {
    assert.ok(
      profile.resultLimitBytes === null || profile.resultLimitBytes >= 1_000,
      `${profile.id}: ${profile.resultLimitBytes}`,
    );
  }
  const { resultLimitBytes: _limit, ...without } = codex;
  assert.throws(() => parseProfile(without, "codex.json"), /resultLimitBytes/);
  assert.throws(
    () => parseProfile({ ...codex, resultLimitBytes: "12 KB" }, "codex.json"),
    /resultLimitBytes must be null or a whole number of bytes/,
  );
});

Deno.test("the bridge knows the named hosts' limits; any other gets the smallest stated", () => {
  const limits = resultLimits();
  const stated = HOST_PROFILES.flatMap((p) => p.resultLimitBytes ?? []);
  assert.equal(limits.fallback, Math.min(...stated));
  // The bridge's own default, for a bridge built without the profiles, is the same.
  assert.equal(limits.fallback, SMALLEST_RESULT_BYTES);
  for (const [id, names] of Object.entries(MCP_CLIENT_NAMES)) {
    const profile = HOST_PROFILES.find((p) => p.id === id);
    assert.ok(profile, `a client name for a host with no profile: ${id}`);
    for (const name of names) {
      assert.equal(resultLimitFor(limits, name), profile.resultLimitBytes ?? limits.fallback);
      assert.equal(resultLimitFor(limits, name.toUpperCase()), resultLimitFor(limits, name));
    }
  }
  assert.equal(resultLimitFor(limits, "some-new-host"), limits.fallback);
  assert.equal(resultLimitFor(limits, undefined), limits.fallback);
  assert.equal(resultLimitFor(limits, "constructor"), limits.fallback, "own names only");
});

Deno.test("a profile whose limit is not known gets the smallest stated, not none", () => {
  const unknown = HOST_PROFILES.map((p) =>
    p.id === "gemini" ? { ...p, resultLimitBytes: null } : p
  );
  const limits = resultLimits(unknown);
  assert.equal(resultLimitFor(limits, MCP_CLIENT_NAMES.gemini[0]), limits.fallback);
});
