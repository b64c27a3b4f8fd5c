using System.Collections.Generic;
using System.Linq;
using Newtonsoft.Json.Linq;

namespace Savepoint
{
    // What the game reads: always the device's copy, at once (README, Local-first).
    public sealed partial class SavepointClient
    {
        /// <summary>The slot's data as the device knows it (its newest save, else the server's last state).</summary>
        public JObject Load(string slotId)
        {
            LoadLocal();
            lock (gate) return Json.Copy(Store.Get(slotId)?.Current()?.Data);
        }

        public JObject SlotInfo(string slotId)
        {
            LoadLocal();
            lock (gate) return Json.Copy(Store.Get(slotId)?.Current()?.SlotInfo);
        }

        public JObject AccountData()
        {
            return Load(LocalStore.AccountTarget);
        }

        /// <summary>Slot ids known on this device.</summary>
        public List<string> Slots()
        {
            LoadLocal();
            return Store.All().Select(r => r.Target).Where(t => t != LocalStore.AccountTarget).ToList();
        }

        /// <summary>The ring of local saves of a slot, oldest first (maxQueuedLocalSnapshots of them).</summary>
        public List<Snapshot> LocalSnapshots(string slotId)
        {
            LoadLocal();
            lock (gate)
            {
                var r = Store.Get(slotId);
                return r == null ? new List<Snapshot>() : r.Snapshots.Select(s => new Snapshot { Seq = s.Seq, Data = Json.Copy(s.Data),
                    SlotInfo = Json.Copy(s.SlotInfo), SavedAt = s.SavedAt }).ToList();
            }
        }

        /// <summary>Local undo: saves the snapshot before the newest again, as a new save.</summary>
        public Snapshot Undo(string slotId)
        {
            var ring = LocalSnapshots(slotId);
            if (ring.Count < 2) return null;
            var previous = ring[ring.Count - 2];
            return SaveTarget(slotId, previous.Data, previous.SlotInfo);
        }
    }
}
