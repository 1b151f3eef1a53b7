import { BENCH_JSON, BenchRun, performanceDoc, withBenchBlocks } from "../scripts/bench/report.ts";
import { writeFormatted } from "../scripts/doc_blocks.ts";
const run = BenchRun.parse(JSON.parse(await Deno.readTextFile(BENCH_JSON)));
await writeFormatted("docs/performance.md", performanceDoc(run));
await writeFormatted("README.md", withBenchBlocks(await Deno.readTextFile("README.md"), run));
