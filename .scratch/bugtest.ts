import { toolRig, ok, inOrder } from "../tests/support/scripted_daemon.ts";
import { post } from "../src/daemon/routes.ts";
