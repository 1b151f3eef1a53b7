// Every route family, in one table.
import type { Route } from "../router.ts";
import { healthRoutes } from "./health.ts";
import { historyRoutes } from "./history.ts";

export const allRoutes: Route[] = [
  ...healthRoutes,
  ...historyRoutes,
];
