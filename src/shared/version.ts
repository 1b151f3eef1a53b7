/** Identity of this bridge, reported to hosts and to the daemon. */
export const SERVER_NAME = "portreeve";
export const SOFTWARE_VERSION = "0.1.0";
export const PRODUCT = "portreeve-mcp";
