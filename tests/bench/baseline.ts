// The floor every deployment is compared with: Bun.serve that reads a JSON body and answers a JSON
// body of a sync's size, with no auth, validation, bus or store.
const port = Number(process.env.PORT ?? 0);
const answer = JSON.stringify({
  status: "accepted",
  version: 2,
  updatedAt: new Date().toISOString(),
  historyRetained: true,
});
const server = Bun.serve({
  port,
  hostname: "127.0.0.1",
  async fetch(req) {
    await req.json();
    return new Response(answer, { headers: { "content-type": "application/json" } });
  },
});
console.log(`baseline listening on ${server.port}`);
