/**
 * Cost of the credential scrubber on the stdout hot path: milliseconds per MiB of frame JSON
 * (a realistic mix: records, UUIDs, timestamps, prose), against JSON.stringify of the same
 * data measured in the same run. `deno run scripts/bench/scrub.ts` prints it alone.
 */
import { CredentialFragments } from "../../src/custody/fragments.ts";
import { newHandle } from "../../src/custody/handle.ts";

export interface ScrubCost {
  held: number;
  msPerMiB: number;
  stringifyMsPerMiB: number;
  /** Same frames, with one held token split by spaces in each: redactions found per MiB. */
  redactionsPerMiB: number;
}

function frames(count: number, leak?: string): unknown[] {
  return Array.from({ length: count }, (_, i) => ({
    jsonrpc: "2.0",
    id: i,
    result: {
      content: [{ type: "text", text: `Port ${40000 + i} is claimed by shop/api (sticky).` }],
      structuredContent: {
        ok: true,
        data: {
          items: Array.from({ length: 8 }, (_, k) => ({
            id: crypto.randomUUID(),
            port: 40000 + k,
            classification: "verified",
            claim: { project: "shop", workspaceRoot: "/home/dev/src/shop", component: "api" },
            lastUsedAt: new Date(1_790_000_000_000 + k).toISOString(),
            note: leak && k === 0 ? `echo ${leak.match(/.{1,4}/g)!.join(" ")}` : null,
          })),
        },
      },
    },
  }));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export function measureScrub(held: number, runs = 7): ScrubCost {
  const fragments = new CredentialFragments();
  const tokens = Array.from({ length: held }, () => newHandle());
  for (const token of tokens) fragments.remember(token);
  const data = frames(400);
  const texts = data.map((f) => JSON.stringify(f));
  const mib = texts.reduce((n, t) => n + t.length, 0) / 2 ** 20;
  const scrubTimes: number[] = [];
  const stringifyTimes: number[] = [];
  for (let r = 0; r < runs; r++) {
    let t = performance.now();
    for (const f of data) JSON.stringify(f);
    stringifyTimes.push(performance.now() - t);
    t = performance.now();
    for (const text of texts) fragments.scrub(text);
    scrubTimes.push(performance.now() - t);
  }
  const leaky = frames(400, tokens[0]).map((f) => JSON.stringify(f));
  const leakyMiB = leaky.reduce((n, t) => n + t.length, 0) / 2 ** 20;
  let redactions = 0;
  for (const text of leaky) redactions += fragments.scrub(text).split("[redacted]").length - 1;
  return {
    held,
    msPerMiB: median(scrubTimes) / mib,
    stringifyMsPerMiB: median(stringifyTimes) / mib,
    redactionsPerMiB: redactions / leakyMiB,
  };
}

if (import.meta.main) {
  for (const held of [0, 10, 1000]) {
    const c = measureScrub(held);
    console.log(
      `${held} credentials held: scrub ${c.msPerMiB.toFixed(1)} ms/MiB, JSON.stringify ${
        c.stringifyMsPerMiB.toFixed(1)
      } ms/MiB (${(c.msPerMiB / c.stringifyMsPerMiB).toFixed(2)}×); ${
        c.redactionsPerMiB.toFixed(0)
      } redactions/MiB when every frame leaks one split token`,
    );
  }
}
