/** Settings family: the daemon's global runtime settings. */
import { z } from "zod";
import { defineTool } from "../define.ts";
import { settings } from "../shapes.ts";

export const settingsGet = defineTool({
  name: "portreeve_settings_get",
  title: "Get settings",
  kind: "read",
  description:
    "Read the daemon's global settings: automatic port ranges, excluded ports, lease TTL, grace period and history limits.",
  input: z.strictObject({}),
  output: settings,
  call: async (ctx) =>
    await ctx.daemon.get("/v1/config", {}, { signal: ctx.signal }) as z.input<typeof settings>,
  summary: (s) =>
    `Ranges ${
      s.automaticPortRanges.map((r) => `${r.start}–${r.end}`).join(", ")
    }; ${s.excludedPorts.length} excluded; lease TTL ${s.leaseTtlMilliseconds} ms.`,
});
