// Every route family, in one table.
import type { Route } from "../router.ts";
import { activationRoutes } from "./activations.ts";
import { claimRoutes } from "./claims.ts";
import { discoveryRoutes } from "./discovery.ts";
import { generationRoutes } from "./generations.ts";
import { healthRoutes } from "./health.ts";
import { historyRoutes } from "./history.ts";
import { launcherRoutes } from "./launcher.ts";
import { leaseRoutes } from "./leases.ts";
import { portRoutes } from "./ports.ts";
import { receiptRoutes } from "./receipts.ts";
import { stackRoutes } from "./stacks.ts";

export const allRoutes: Route[] = [
  ...healthRoutes,
  ...historyRoutes,
  ...portRoutes,
  ...claimRoutes,
  ...leaseRoutes,
  ...stackRoutes,
  ...generationRoutes,
  ...activationRoutes,
  ...discoveryRoutes,
  ...launcherRoutes,
  ...receiptRoutes,
];
