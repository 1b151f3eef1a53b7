/**
 * Every host the suite runs: the first three (hosts.ts) and the npm hosts beside them
 * (npm_hosts.ts). Tests that walk every host import this list.
 */
import { HOSTS } from "./hosts.ts";
import type { HostAdapter } from "./hosts.ts";
import { NPM_HOSTS } from "./npm_hosts.ts";

export const ALL_HOSTS: readonly HostAdapter[] = [...HOSTS, ...NPM_HOSTS];
