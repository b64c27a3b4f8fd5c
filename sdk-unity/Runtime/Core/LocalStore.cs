using System.Collections.Generic;
using System.Linq;
using Newtonsoft.Json.Linq;

namespace Savepoint
{
    /// <summary>A local save: one entry of a record's ring (maxQueuedLocalSnapshots).</summary>
    public sealed class Snapshot
    {
        public long Seq;
        public JObject Data;
        public JObject SlotInfo;
        /// <summary>On the server's clock as this device estimates it (the latest rule compares it with updatedAt).</summary>
        public long SavedAt;
    }

    /// <summary>The write being sent: kept with its Idempotency-Key so a retry after a crash is the same request.</summary>
    public sealed class Inflight
    {
        public string Key;
        /// <summary>The newest snapshot it carries.</summary>
        public long Seq;
        /// <summary>null: the slot is not on the server yet (created with route 12).</summary>
        public int? BaseVersion;
        public JObject Data;
        public JObject SlotInfo;
    }

    /// <summary>The server state a local change was made on.</summary>
    public sealed class BaseState
    {
        public int Version;
        public JObject Data;
        public JObject SlotInfo;
        public long UpdatedAt;
    }

    /// <summary>Everything the device knows about one slot, or about the account data (Target "accountData").</summary>
    public sealed class LocalRecord
    {
        public string Target;
        public BaseState Base;
        public List<Snapshot> Snapshots = new List<Snapshot>();
        /// <summary>Newest snapshot the server has.</summary>
        public long SyncedSeq;
        public long NextSeq = 1;
        public Inflight Inflight;
        /// <summary>Idempotency-Keys given to queued saves in one write before a replay sends them (replay All), by seq.</summary>
        public Dictionary<long, string> QueuedKeys;

        public long NewestSeq { get { return Snapshots.Count == 0 ? 0 : Snapshots[Snapshots.Count - 1].Seq; } }
        public bool IsDirty { get { return NewestSeq > SyncedSeq; } }
        public bool IsPending { get { return IsDirty || Inflight != null; } }

        /// <summary>What the game reads: its newest save if the server does not have it yet, else the server state.</summary>
        public Snapshot Current()
        {
            if (IsDirty || Base == null) return Snapshots.LastOrDefault();
            return new Snapshot { Seq = SyncedSeq, Data = Base.Data, SlotInfo = Base.SlotInfo, SavedAt = Base.UpdatedAt };
        }

        /// <summary>Adds a save to the ring, keeping the newest <paramref name="max"/> (the older ones double as local undo).</summary>
        public Snapshot Add(JObject data, JObject slotInfo, long now, int max)
        {
            var s = new Snapshot { Seq = NextSeq++, Data = data, SlotInfo = slotInfo, SavedAt = now };
            Snapshots.Add(s);
            if (Snapshots.Count > max) Snapshots.RemoveRange(0, Snapshots.Count - max);
            return s;
        }
    }

    /// <summary>
    /// The device's copy of every record, on a storage. A put writes the data of new snapshots under keys of
    /// their own first, then the record that names them, then removes snapshots the ring dropped: a crash in
    /// between leaves a record whose snapshots all exist, and a save writes one snapshot, not the whole ring.
    /// Callers hold <see cref="Gate"/>.
    /// </summary>
    public sealed class LocalStore
    {
        public const string AccountTarget = "accountData";
        public readonly object Gate = new object();
        public readonly IStorage Storage;
        public readonly string Namespace;
        readonly Dictionary<string, LocalRecord> records = new Dictionary<string, LocalRecord>();
        readonly Dictionary<string, HashSet<long>> written = new Dictionary<string, HashSet<long>>();

        public LocalStore(IStorage storage, string ns)
        {
            Storage = storage;
            Namespace = ns;
        }

        string Key(string name) { return Namespace + ":" + name; }
        string SnapKey(string target, long seq) { return Key("snap:" + target + ":" + seq); }

        public void Load()
        {
            lock (Gate)
            {
                records.Clear();
                written.Clear();
                foreach (var k in Storage.Keys(Key("record:")))
                {
                    var text = Storage.Get(k);
                    if (text == null) continue;
                    var stored = Json.ParseObject(text);
                    var r = new LocalRecord
                    {
                        Target = (string)stored["target"],
                        SyncedSeq = (long)stored["syncedSeq"],
                        NextSeq = (long)stored["nextSeq"],
                    };
                    var have = new HashSet<long>();
                    foreach (JObject s in (JArray)stored["snapshots"])
                    {
                        var seq = (long)s["seq"];
                        var dataText = Storage.Get(SnapKey(r.Target, seq));
                        if (dataText == null) continue;
                        have.Add(seq);
                        r.Snapshots.Add(new Snapshot { Seq = seq, Data = Json.ParseObject(dataText), SlotInfo = s["slotInfo"] as JObject,
                            SavedAt = (long)s["savedAt"] });
                    }
                    if (stored["base"] is JObject b)
                        r.Base = new BaseState { Version = (int)b["version"], Data = DataOf(b, r), SlotInfo = b["slotInfo"] as JObject,
                            UpdatedAt = (long)b["updatedAt"] };
                    if (stored["inflight"] is JObject w)
                    {
                        r.Inflight = new Inflight
                        {
                            Key = (string)w["key"], Seq = (long)w["seq"], BaseVersion = (int?)w["baseVersion"], Data = DataOf(w, r),
                                SlotInfo = w["slotInfo"] as JObject,
                        };
                    }
                    if (stored["queuedKeys"] is JObject q) r.QueuedKeys = q.Properties().ToDictionary(p => long.Parse(p.Name), p => (string)p.Value);
                    records[r.Target] = r;
                    written[r.Target] = have;
                }
            }
        }

        /// <summary>A base or a write whose data is a snapshot's refers to it by seq: one object again in memory.</summary>
        static JObject DataOf(JObject v, LocalRecord r)
        {
            if (v["dataSeq"] != null)
            {
                var seq = (long)v["dataSeq"];
                return r.Snapshots.FirstOrDefault(s => s.Seq == seq)?.Data ?? new JObject();
            }
            return v["data"] as JObject ?? new JObject();
        }

        public LocalRecord Get(string target)
        {
            lock (Gate) return records.TryGetValue(target, out var r) ? r : null;
        }

        public List<LocalRecord> All()
        {
            lock (Gate) return records.Values.ToList();
        }

        public LocalRecord GetOrCreate(string target)
        {
            lock (Gate)
            {
                if (!records.TryGetValue(target, out var r)) records[target] = r = new LocalRecord { Target = target };
                return r;
            }
        }

        /// <summary>Persists the record as it is now; durable when this returns.</summary>
        public void Put(LocalRecord record)
        {
            lock (Gate)
            {
                records[record.Target] = record;
                if (!written.TryGetValue(record.Target, out var have)) written[record.Target] = have = new HashSet<long>();
                foreach (var s in record.Snapshots)
                {
                    if (have.Contains(s.Seq)) continue;
                    Storage.Set(SnapKey(record.Target, s.Seq), s.Data.ToString(Newtonsoft.Json.Formatting.None));
                    have.Add(s.Seq);
                }
                var stored = new JObject
                {
                    ["target"] = record.Target,
                    ["syncedSeq"] = record.SyncedSeq,
                    ["nextSeq"] = record.NextSeq,
                    ["snapshots"] = new JArray(record.Snapshots.Select(s =>
                    {
                        var o = new JObject { ["seq"] = s.Seq, ["savedAt"] = s.SavedAt };
                        if (s.SlotInfo != null) o["slotInfo"] = s.SlotInfo;
                        return o;
                    })),
                };
                if (record.Base != null)
                {
                    var b = Ref(record, record.Base.Data);
                    b["version"] = record.Base.Version;
                    b["updatedAt"] = record.Base.UpdatedAt;
                    if (record.Base.SlotInfo != null) b["slotInfo"] = record.Base.SlotInfo;
                    stored["base"] = b;
                }
                if (record.Inflight != null)
                {
                    var w = Ref(record, record.Inflight.Data);
                    w["key"] = record.Inflight.Key;
                    w["seq"] = record.Inflight.Seq;
                    w["baseVersion"] = record.Inflight.BaseVersion == null ? JValue.CreateNull() : new JValue(record.Inflight.BaseVersion.Value);
                    if (record.Inflight.SlotInfo != null) w["slotInfo"] = record.Inflight.SlotInfo;
                    stored["inflight"] = w;
                }
                if (record.QueuedKeys != null) stored["queuedKeys"] = new JObject(record.QueuedKeys.Select(kv => new JProperty(kv.Key.ToString(), kv.Value)));
                Storage.Set(Key("record:" + record.Target), stored.ToString(Newtonsoft.Json.Formatting.None));
                var kept = new HashSet<long>(record.Snapshots.Select(s => s.Seq));
                foreach (var seq in have.Where(s => !kept.Contains(s)).ToList())
                {
                    Storage.Remove(SnapKey(record.Target, seq));
                    have.Remove(seq);
                }
            }
        }

        static JObject Ref(LocalRecord r, JObject data)
        {
            var s = r.Snapshots.FirstOrDefault(x => ReferenceEquals(x.Data, data));
            return s != null ? new JObject { ["dataSeq"] = s.Seq } : new JObject { ["data"] = data };
        }

        public void Forget(string target)
        {
            lock (Gate)
            {
                records.Remove(target);
                written.Remove(target);
                Storage.Remove(Key("record:" + target));
                foreach (var k in Storage.Keys(Key("snap:" + target + ":")).ToList()) Storage.Remove(k);
            }
        }

        public void Clear()
        {
            lock (Gate) foreach (var t in records.Keys.ToList()) Forget(t);
        }

        /// <summary>Small values beside the records: the session, the cached runtime config, the clock offset.</summary>
        public JToken GetValue(string name)
        {
            var text = Storage.Get(Key(name));
            return text == null ? null : Json.Parse(text);
        }

        public void SetValue(string name, JToken value)
        {
            lock (Gate)
            {
                if (value == null) Storage.Remove(Key(name));
                else Storage.Set(Key(name), value.ToString(Newtonsoft.Json.Formatting.None));
            }
        }
    }
}
