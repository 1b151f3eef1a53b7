/** Settings family: the daemon's global runtime settings. */
import { z } from "zod";
import { settings } from "../records.ts";
import { get } from "../routes.ts";
import { readTool } from "../read_tool.ts";

export const settingsGet = readTool({
  name: "portreeve_settings_get",
  title: "Get settings",
  description: "Port ranges, excluded ports, TTLs.",
  input: z.strictObject({}),
  route: get("/v1/config", settings),
});
