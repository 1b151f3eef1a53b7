import { ALL_TOOLS } from "../src/catalogue/index.ts";
import { possibleEffects } from "../src/daemon/effects.ts";
for (const tool of ALL_TOOLS) {
  for (const route of tool.routes ?? []) {
    const levels = possibleEffects(route.effect).map((e) => e.level);
    if (levels.every((l) => l === "read")) continue;
    console.log(
      tool.kind.padEnd(9),
      tool.name.padEnd(40),
      route.route.padEnd(60),
      levels.join(","),
      route.check ? "check" : "NO-CHECK",
    );
  }
}
