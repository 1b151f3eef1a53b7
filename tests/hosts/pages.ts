/**
 * Every host's page arrives whole: 30 claims on the simulator, the real host running the
 * bridge as `config --host` prints it (started through the stdio tap, so the suite knows what
 * the bridge returned), and a scripted model that lists claims with `limit: 200` and then pages
 * on with the `nextCursor` it was shown, until a page has none. Each host runs on the path it
 * takes by default (the probe paths of cuts.ts).
 */
import { join } from "node:path";
import { seedClaim, seeder } from "../e2e/seed.ts";
import { installedBin } from "./install.ts";
import { printedConfig, startRig, withServerEntry } from "./rig.ts";
import { startScriptedModel } from "./scripted_model.ts";
import type { ProbePath } from "./cuts.ts";
import { reply, type Returned, throughTap } from "./views.ts";
import { sharedRun } from "./shared_run.ts";

/** The claims each run pages through. */
export const PAGED_CLAIMS = 30;
/** More pages than any host needs for them (Cline's are the smallest), so a loop ends. */
const MAX_PAGES = 15;
/** Results that are not pages (a server still starting) before the run gives up. */
const MAX_NOT_PAGES = 10;

const isPage = (text: string) => /\\?"items\\?":\[/.test(text);
const CURSOR = /\\?"nextCursor\\?"\s*:\s*\\?"([A-Za-z0-9_-]+)/;

export interface PagedRun {
  label: string;
  host: string;
  /** Each page the model was shown, with what the bridge returned for that call. */
  pages: { shown: string; returned: Returned | null }[];
  /** The ids of the claims the run seeded. */
  claimIds: string[];
}

const runs = new Map<string, Promise<PagedRun>>();

export function pagedRun(path: ProbePath): Promise<PagedRun> {
  return sharedRun(runs, path.id, () => page(path));
}

async function page(path: ProbePath): Promise<PagedRun> {
  const bin = await installedBin(path.pkg);
  const rig = await startRig({ seed: false });
  try {
    const workspace = join(rig.demoRoot, "paged");
    await Deno.mkdir(workspace);
    const seed = seeder(rig.socket);
    try {
      for (let i = 0; i < PAGED_CLAIMS; i++) {
        await seedClaim(seed, "paged", await Deno.realPath(workspace), `svc-${i}`);
      }
    } finally {
      seed.close();
    }
    const claimIds = [...rig.sim.control.state.claims.values()].map((claim) => claim.id);
    const printed = await printedConfig(path.pkg.host, rig.socket);
    const tapLog = join(rig.home, "tap.jsonl");
    // The printed command, started through the tap, which logs each frame it passes on.
    await path.adapter.configure(
      rig,
      withServerEntry(printed, throughTap(tapLog, printed.command, printed.args)),
    );
    const model = startScriptedModel((request) => {
      const shown = path.shown(request.body);
      const pages = shown.filter(isPage);
      if (pages.length >= MAX_PAGES || shown.length - pages.length >= MAX_NOT_PAGES) return null;
      const last = shown.at(-1);
      if (last !== undefined && isPage(last)) {
        // Paging on with the cursor the model was shown; none means the last page.
        const cursor = last.match(CURSOR)?.[1];
        if (cursor === undefined) return null;
        const args = { limit: 200, afterCursor: cursor };
        return path.ask(request, { tool: "portreeve_claims_list", args }, shown.length);
      }
      return path.ask(
        request,
        { tool: "portreeve_claims_list", args: { limit: 200 } },
        shown.length,
      );
    }, path.fallback);
    try {
      const result = await path.run(bin, rig, model.url);
      const last = model.requests.at(-1);
      const shown = last === undefined ? [] : path.shown(last.body);
      if (!shown.some(isPage)) {
        throw new Error(
          `${path.label} showed its model no page (exit ${result.code}):\n` +
            `${result.stdout.slice(-1500)}\n${result.stderr.slice(-1500)}`,
        );
      }
      // The n-th result the model was shown answers the bridge's n-th tools/call.
      const pages: PagedRun["pages"] = [];
      for (const [index, text] of shown.entries()) {
        if (isPage(text)) pages.push({ shown: text, returned: await reply(tapLog, index) });
      }
      return { label: path.label, host: path.pkg.host, pages, claimIds };
    } finally {
      await model.close();
    }
  } finally {
    await rig.close();
  }
}
