/**
 * Each host's cut, measured on every path it takes (cuts.ts), and the profiles that carry it:
 * `resultLimitBytes` in config-profiles/HOST.json must be the smallest cut of that host's
 * paths, or at most 5 % below it (a profile rounds down, never up), in bytes of what the host
 * shows (`resultShownAs`: Cline shows the whole result as JSON, so its cut is measured on that).
 * A profile without the field (before it is merged) is reported, not failed. And every host's
 * page arrives whole (pages.ts): 30 claims, paged on from the cursor the model saw.
 * `HOSTS_UPDATE_DOCS=1` rewrites docs/hosts.md's table of the cuts.
 */
import assert from "node:assert/strict";
import {
  copiesOf,
  copiesShown,
  type Cut,
  measuredCut,
  nextSize,
  PROBE_HIGH,
  PROBE_LOW,
  PROBE_PATHS,
  probeShownBytes,
  replay,
  START,
} from "./cuts.ts";
import { PROBE_MIN_BYTES, probeRecord } from "./probe_server.ts";
import { checkDocBlock } from "./report.ts";
import { PAGED_CLAIMS, pagedRun } from "./pages.ts";
import { z } from "zod";

/** A claims page as the bridge returned it: its claims' ids and the next cursor. */
const pageData = z.object({
  data: z.object({
    items: z.array(z.object({ id: z.string() })),
    page: z.object({ nextCursor: z.string().optional() }),
  }),
});

/** Which measured paths each profile stands for. */
export const PROFILE_PATHS: Record<string, readonly string[]> = {
  claude: ["claude", "claude-latest"],
  codex: ["codex-classic", "codex-search", "codex-code"],
  gemini: ["gemini"],
  opencode: ["opencode"],
  copilot: ["copilot"],
  qwen: ["qwen"],
  cline: ["cline"],
};

/** A profile may carry a cut at most this much below the measured one. */
const ROUNDING = 0.05;

Deno.test("a probe record has exactly the size asked, and bisection finds a cut to the byte", () => {
  for (const bytes of [PROBE_MIN_BYTES, 65, 100, 1023, 1024, 12_345, 40_000, PROBE_HIGH]) {
    assert.equal(new TextEncoder().encode(JSON.stringify(probeRecord(bytes))).length, bytes);
  }
  for (const limit of [PROBE_LOW, 11_957, 39_911, 50_000, PROBE_HIGH - 1]) {
    // A host that shows records up to `limit` bytes whole and cuts the rest to a preview.
    const host = (size: number) => {
      const record = JSON.stringify(probeRecord(size));
      return size <= limit ? `Output:\n${record}` : record.slice(0, limit - 1);
    };
    const shown: string[] = [];
    for (let size = nextSize(START); size !== null; size = nextSize(replay(START, shown))) {
      shown.push(host(size));
      assert.ok(shown.length <= 24, "bisection ends");
    }
    const found = replay(START, shown);
    assert.deepEqual([found.lo, found.hi], [limit, limit + 1]);
  }
  const never = replay(
    START,
    [PROBE_LOW, PROBE_HIGH].map((size) => JSON.stringify(probeRecord(size))),
  );
  assert.ok(never.noCut && nextSize(never) === null, "a host that cuts nothing is found out");
});

for (const path of PROBE_PATHS) {
  Deno.test(`${path.label}: the largest result shown whole is measured`, async () => {
    const cut = await measuredCut(path);
    console.log(
      `${cut.label}: ${
        cut.limitBytes === null ? `nothing cut up to ${PROBE_HIGH}` : cut.limitBytes
      } B ` +
        `shown whole, ${cut.cutBytes} B cut (${cut.overCut}; ${cut.runs} runs)`,
    );
    if (cut.limitBytes !== null) {
      assert.ok(cut.limitBytes >= PROBE_LOW && cut.limitBytes < cut.cutBytes);
    }
  });
}

/**
 * The smallest cut among a host's paths: what a result must fit on every one of them, in bytes
 * of what the host shows of the largest probe result it showed whole.
 */
export async function hostCut(host: string): Promise<number | null> {
  const limits: number[] = [];
  for (const id of PROFILE_PATHS[host] ?? []) {
    const path = PROBE_PATHS.find((candidate) => candidate.id === id);
    assert.ok(path !== undefined, `no probe path ${id}`);
    const { limitBytes } = await measuredCut(path);
    if (limitBytes !== null) limits.push(probeShownBytes(host, limitBytes));
  }
  return limits.length === 0 ? null : Math.min(...limits);
}

for (const host of Object.keys(PROFILE_PATHS)) {
  Deno.test(`config-profiles/${host}.json: resultLimitBytes is the measured cut`, async () => {
    const measured = await hostCut(host);
    const profile: unknown = JSON.parse(
      await Deno.readTextFile(new URL(`../../config-profiles/${host}.json`, import.meta.url)),
    );
    assert.ok(typeof profile === "object" && profile !== null);
    if (!("resultLimitBytes" in profile)) {
      console.log(`config-profiles/${host}.json has no resultLimitBytes yet; measured ${measured}`);
      return;
    }
    const carried = profile.resultLimitBytes;
    if (measured === null) {
      assert.equal(carried, null, `${host} cuts nothing up to ${PROBE_HIGH} B: null`);
      return;
    }
    assert.ok(
      typeof carried === "number",
      `${host}: resultLimitBytes ${carried}, measured ${measured}`,
    );
    assert.ok(
      carried <= measured && carried >= Math.floor(measured * (1 - ROUNDING)),
      `${host}: the profile carries ${carried} B, the host shows at most ${measured} B whole ` +
        `(the smallest of its paths' cuts); carry a value from ${
          Math.floor(measured * (1 - ROUNDING))
        } ` +
        `to ${measured}`,
    );
  });
}

Deno.test("docs/hosts.md's table of cuts is what the hosts did", async () => {
  const rows: Cut[] = [];
  for (const path of PROBE_PATHS) rows.push(await measuredCut(path));
  await checkDocBlock("docs/hosts.md", "host-cuts", cutsTable(rows));
});

export function cutsTable(rows: readonly Cut[]): string {
  const kb = (n: number) => n.toLocaleString("en-US");
  return [
    "| Host and path | Largest result shown whole | Smallest result cut | Over the cut, the model sees |",
    "| --- | --- | --- | --- |",
    ...rows.map((row) =>
      `| ${row.label} | ${
        row.limitBytes === null
          ? `all up to ${kb(PROBE_HIGH)} B`
          : `${kb(probeShownBytes(row.host, row.limitBytes))} B`
      } | ` +
      `${
        row.limitBytes === null ? "—" : `${kb(probeShownBytes(row.host, row.cutBytes))} B`
      } | ${row.overCut} |`
    ),
  ].join("\n");
}

/** The path each host takes by default: where its pages must arrive whole. */
const PAGE_PATHS = ["claude", "codex-classic", "gemini", "opencode", "copilot", "qwen", "cline"];

for (const id of PAGE_PATHS) {
  const path = PROBE_PATHS.find((candidate) => candidate.id === id);
  assert.ok(path !== undefined, `no probe path ${id}`);
  Deno.test(`${path.label}: a limit-200 page of ${PAGED_CLAIMS} claims arrives whole, and paging on reaches every claim`, async () => {
    const run = await pagedRun(path);
    const copies = copiesOf(run.host);
    const seen: string[] = [];
    for (const [index, { shown, returned }] of run.pages.entries()) {
      assert.ok(returned !== null && !returned.isError, `${run.label}: page ${index} failed`);
      const data = pageData.parse(returned.structured).data;
      // Whole: every copy the host shows of what the bridge returned, cursor and all.
      assert.ok(
        copiesShown(shown, returned.text) >= copies,
        `${run.label}: page ${index} (${data.items.length} claims, ${returned.text.length} chars) was cut; the model saw ${shown.length} chars:\n${
          shown.slice(0, 300)
        }`,
      );
      seen.push(...data.items.map((item) => item.id));
      const last = index === run.pages.length - 1;
      assert.equal(data.page.nextCursor === undefined, last, `${run.label}: page ${index}`);
    }
    console.log(
      `${run.label}: ${run.pages.length} page(s): ${
        run.pages.map((p) => pageData.parse(p.returned!.structured).data.items.length).join(", ")
      } claims`,
    );
    assert.deepEqual([...seen].sort(), [...run.claimIds].sort(), `${run.label}: every claim once`);
  });
}
