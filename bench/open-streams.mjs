// Opens `count` concurrent GET streams to `url` (argv[2], argv[3]), waits until every one has received its first
// bytes, prints "open <count>", and holds them until stdin closes.
import http from "node:http";

const url = new URL(process.argv[2]);
const count = Number(process.argv[3] ?? 1000);
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
let ready = 0;
const requests = [];
for (let i = 0; i < count; i++) {
  const request = http.get(url, { agent, headers: { Accept: "text/event-stream" } }, (response) => {
    response.once("data", () => {
      ready++;
      if (ready === count) {
        console.log(`open ${count}`);
      }
    });
    response.on("error", () => {});
  });
  request.on("error", (error) => {
    console.error(`stream ${i} failed: ${error.message}`);
    process.exit(1);
  });
  requests.push(request);
}
process.stdin.resume();
process.stdin.on("end", () => {
  requests.forEach((request) => request.destroy());
  process.exit(0);
});
