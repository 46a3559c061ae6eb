// The requests a schemathesis run sent, from its NDJSON report: each finished scenario records its
// interactions (one request and its response each).
import { readFileSync } from "node:fs";

let requests = 0;
for (const line of readFileSync(process.argv[2], "utf8").split("\n")) {
  if (!line.startsWith('{"ScenarioFinished"')) continue;
  requests += Object.keys(JSON.parse(line).ScenarioFinished.recorder.interactions ?? {}).length;
}
console.log(requests);
