using System;
using System.Collections.Generic;
using System.Linq;
using Newtonsoft.Json.Linq;

namespace Savepoint
{
    /// <summary>
    /// keep: adopt the session, keep every local change and push it. replace: nothing would be lost; the incoming
    /// account's data replaces the device's. ask: show the player Unsynced; Declined says what a no (or nobody to
    /// ask) does: "cancel" (a transfer answers false) or "refuse" (a sign-in throws unsynced_saves).
    /// </summary>
    public sealed class ReattachDecision
    {
        public string Action;
        public List<UnsyncedChange> Unsynced;
        public string Declined;
    }

    /// <summary>
    /// What a device does when a session for some account arrives (a transfer code, a provider sign-in), as pure
    /// functions: the TypeScript SDK's reattach-decision.ts and unsynced.ts, checked by both against sdk-vectors/reattach.json.
    /// </summary>
    public static class Reattach
    {
        /// <summary>The device's own account, or a first account for a device that had none: nothing is at stake, nothing is pushed first.</summary>
        public static bool KeepsLocal(string via, string currentAccountId, string incomingAccountId, bool isNewAccount)
        {
            if (incomingAccountId == currentAccountId) return true;
            return via == "signIn" && isNewAccount && currentAccountId == null;
        }

        /// <summary><paramref name="via"/>: "transfer" or "signIn"; <paramref name="unsynced"/>: what the server lacks after the push tried first.</summary>
        public static ReattachDecision Decide(string via, string currentAccountId, string incomingAccountId, bool isNewAccount,
            List<UnsyncedChange> unsynced)
        {
            if (KeepsLocal(via, currentAccountId, incomingAccountId, isNewAccount)) return new ReattachDecision { Action = "keep" };
            // A transfer always asks (the player typed a code for another account); a sign-in only when saves would be lost.
            if (via == "signIn" && unsynced.Count == 0) return new ReattachDecision { Action = "replace" };
            return new ReattachDecision { Action = "ask", Unsynced = unsynced, Declined = via == "transfer" ? "cancel" : "refuse" };
        }

        /// <summary>Every record with a change the server does not have, in order: its newest state and how many saves it holds.</summary>
        public static List<UnsyncedChange> UnsyncedOf(IEnumerable<LocalRecord> records)
        {
            return records.Where(r => r.IsPending).Select(r =>
            {
                var newest = r.Snapshots.LastOrDefault();
                var fromSnapshot = newest != null && newest.Seq > r.SyncedSeq;
                var data = fromSnapshot ? newest.Data : r.Inflight?.Data;
                var slotInfo = fromSnapshot ? newest.SlotInfo : r.Inflight?.SlotInfo;
                var saves = Math.Max(1, r.Snapshots.Count(s => s.Seq > r.SyncedSeq));
                return new UnsyncedChange { Target = r.Target, Data = Json.Copy(data ?? new JObject()), SlotInfo = Json.Copy(slotInfo), Saves = saves };
            }).ToList();
        }
    }
}
