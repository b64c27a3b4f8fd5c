// Run by compose's mongo-init service (mongosh against mongo1, directConnection=true) once the three
// members answer. Initiates the replica set rs0 with its three members if it is not initiated yet,
// then waits for a primary, so the services start against a set that takes majority writes. Safe to
// run again: an initiated set is left as it is.
const replicaSet = "rs0";
const members = [
  { _id: 0, host: "mongo1:27017", priority: 2 },
  { _id: 1, host: "mongo2:27017", priority: 1 },
  { _id: 2, host: "mongo3:27017", priority: 1 },
];

function initiated() {
  try {
    rs.status();
    return true;
  } catch (e) {
    if (e.codeName === "NotYetInitialized" || e.code === 94) return false;
    throw e;
  }
}

if (initiated()) {
  print(`${replicaSet}: already initiated`);
} else {
  const res = rs.initiate({ _id: replicaSet, members });
  if (res.ok !== 1) throw new Error(`${replicaSet}: rs.initiate failed: ${JSON.stringify(res)}`);
  print(`${replicaSet}: initiated with ${members.map((m) => m.host).join(", ")}`);
}

const deadline = Date.now() + 120_000;
for (;;) {
  const primary = rs.status().members.find((m) => m.stateStr === "PRIMARY");
  if (primary) {
    print(`${replicaSet}: primary is ${primary.name}`);
    break;
  }
  if (Date.now() > deadline) {
    print(`${replicaSet}: no primary after 120 s`);
    quit(1);
  }
  sleep(1000);
}
