// The example game: a counter, an upgrade and a cloud icon on @savepoint/client (sdk/README.md, Quick start).
import { indexedDbStorage, mergeRules, openClient } from "./savepoint.js";

const { api, key } = await (await fetch("./config.json")).json();
// Resolves once this device's saves are loaded (offline too), so `load` below never guesses "no save".
const savepoint = await openClient({
  baseUrl: api,
  runtimeKey: key,
  storage: indexedDbStorage("savepoint-example"),
  // Coins earned on two devices add up; the upgrade level and the best score never go back.
  resolve: mergeRules({ coins: "sum", level: "max", best: "max" }),
  deviceLabel: "Idle clicker (browser)",
});
await savepoint.ensureAccount();

let state = savepoint.load("main") ?? { coins: 0, level: 1, best: 0 };
const $ = (id) => document.getElementById(id);
const cost = () => 10 * state.level ** 2;
const labels = {
  idle: "☁ saved",
  dirty: "☁ saving soon",
  syncing: "☁ syncing",
  offline: "☁ offline (kept here)",
  conflict: "☁ merged",
  error: "☁ error",
};

function render() {
  $("coins").textContent = Math.floor(state.coins).toLocaleString();
  $("rate").textContent = String(state.level);
  $("level").textContent = String(state.level);
  $("per-tap").textContent = String(state.level);
  $("cost").textContent = String(cost());
  $("upgrade").disabled = state.coins < cost();
  $("account").textContent = savepoint.accountId?.slice(0, 10) ?? "…";
}

function change(next) {
  state = { ...next, best: Math.max(next.best ?? 0, next.coins) };
  render();
  // Durable on the device when it resolves; the SDK syncs when the server's policy allows.
  void savepoint.save("main", state, { level: state.level, coins: Math.floor(state.coins) });
}

$("tap").onclick = () => change({ ...state, coins: state.coins + state.level });
$("upgrade").onclick = () =>
  state.coins >= cost() && change({ ...state, coins: state.coins - cost(), level: state.level + 1 });
setInterval(() => change({ ...state, coins: state.coins + state.level }), 1000);

// "Saved to cloud" only when the server acknowledged the save; otherwise what happened and what comes next.
const time = (t) => new Date(t).toLocaleTimeString();
$("save-now").onclick = async () => {
  $("saved").textContent = "…";
  const r = await savepoint.sync({ force: true });
  $("saved").dataset.status = r.status;
  $("saved").textContent =
    r.status === "synced"
      ? "✓ saved to cloud"
      : r.status === "deferred"
        ? `kept here; to the cloud at ${time(r.retryAt)}`
        : r.status === "offline"
          ? "kept here; offline, sent when back online"
          : r.status === "conflict"
            ? "kept here; merging with another device"
            : `kept here; refused: ${Object.values(r.targets).find((t) => t.error)?.error.code}`;
};

savepoint.on("status", (s) => {
  $("cloud").dataset.state = s.state;
  $("cloud").textContent = labels[s.state];
});
// Another device's progress merged in, or pulled on foreground: continue from it.
savepoint.on("change", (c) => {
  if (c.target !== "main") return;
  state = c.data;
  render();
});
render();
window.savepoint = savepoint;
