using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Savepoint
{
    /// <summary>A record's changes the server does not have: what would be lost if this device's data were replaced.</summary>
    public sealed class UnsyncedChange
    {
        public string Target;
        public JObject Data;
        public JObject SlotInfo;
        /// <summary>Local saves not on the server yet.</summary>
        public int Saves;
    }

    public sealed class SignInResult
    {
        public string AccountId;
        public bool IsNewAccount;
    }

    /// <summary>What the player is asked before a transfer replaces this device's account (never asked for its own account).</summary>
    public sealed class TransferPrompt
    {
        public AccountResponse Incoming;
        /// <summary>This device's account id, if it has one (it will be replaced).</summary>
        public string CurrentAccountId;
        /// <summary>This device's changes the server does not have: confirming drops them, declining keeps them.</summary>
        public List<UnsyncedChange> Unsynced;
    }

    /// <summary>Moving devices, signing in, the player's devices and restore points; each keeps the local copy consistent with the server.</summary>
    public sealed class AccountHelpers
    {
        readonly SavepointClient c;

        internal AccountHelpers(SavepointClient client)
        {
            c = client;
        }

        /// <summary>On the old device: a one-time code to type on the new one.</summary>
        public Task<CreateTransferCodeResponse> CreateTransferCodeAsync(int? ttlSeconds = null, string deviceLabel = null)
        {
            return c.Api.CreateTransferCode(ttlSeconds, deviceLabel);
        }

        /// <summary>Every record with saves the server has not acknowledged.</summary>
        public List<UnsyncedChange> Unsynced()
        {
            lock (c.Store.Gate) return Reattach.UnsyncedOf(c.Store.All());
        }

        /// <summary>
        /// Consumes the code. For this device's own account (a signed-out or expired session coming back), the new
        /// session is adopted and every local change kept and pushed, merged on a 409 as usual; nothing is asked.
        /// For another account, what is pending is pushed first if it can be, then the player is shown the incoming
        /// account and what would be lost; only a yes replaces the local data. Declined, nothing local changes and
        /// the new session is signed out again.
        /// </summary>
        public async Task<bool> AttachTransferCodeAsync(string transferCode, Func<TransferPrompt, Task<bool>> confirm)
        {
            var envelope = await c.Api.ConsumeTransferCode(transferCode, c.Options.DeviceLabel).ConfigureAwait(false);
            if (Reattach.KeepsLocal("transfer", c.AccountId, envelope.AccountId, false))
            {
                c.AdoptEnvelope(envelope.AccountId, envelope.AccountSessionToken, envelope.SyncPolicy, envelope.Account);
                await Quietly(c.PullAsync()).ConfigureAwait(false);
                await Quietly(c.FlushNowAsync()).ConfigureAwait(false);
                return true;
            }
            var incomingSession = new Session { AccountId = envelope.AccountId, Token = envelope.AccountSessionToken };
            if (!await MayReplace("transfer", envelope.AccountId, false, () => Task.FromResult(envelope.Account), incomingSession, confirm)
                .ConfigureAwait(false)) return false;
            c.ResetLocal();
            c.AdoptEnvelope(envelope.AccountId, envelope.AccountSessionToken, envelope.SyncPolicy, envelope.Account);
            await c.PullAsync().ConfigureAwait(false);
            return true;
        }

        /// <summary>
        /// Signs in with an identity provider's token. An account on this device without that provider gets it
        /// linked (route 4 with the session: an anonymous player keeps their progress); an identity of another
        /// account (account_auth_conflict) signs in to that account instead. The device's own account, or a new
        /// one for a device that had none, keeps every local save. Another account replaces the local data only
        /// when nothing would be lost, or <paramref name="confirm"/> says yes to the same prompt as a transfer's;
        /// else this throws unsynced_saves (details.pending) and nothing local changes.
        /// </summary>
        public async Task<SignInResult> SignInAsync(string provider, string token, Func<TransferPrompt, Task<bool>> confirm = null)
        {
            AuthSessionResponse a;
            try
            {
                a = await c.Api.ExchangeAuthSession(provider, token, c.Options.DeviceLabel).ConfigureAwait(false);
            }
            catch (SavepointException e) when (e.Code == "account_auth_conflict" && c.AccountId != null)
            {
                a = await c.Api.ExchangeAuthSession(provider, token, c.Options.DeviceLabel, withSession: false).ConfigureAwait(false);
            }
            if (!Reattach.KeepsLocal("signIn", c.AccountId, a.AccountId, a.IsNewAccount))
            {
                var session = new Session { AccountId = a.AccountId, Token = a.AccountSessionToken };
                if (!await MayReplace("signIn", a.AccountId, a.IsNewAccount, () => c.Api.GetAccount(a.AccountId, session), session, confirm)
                    .ConfigureAwait(false))
                {
                    var pending = new JArray(Unsynced().Select(u => u.Target));
                    throw new SavepointException("unsynced_saves", "signing in to another account would drop saves the server does not have", 0,
                        new JObject { ["pending"] = pending });
                }
                c.ResetLocal();
            }
            c.AdoptEnvelope(a.AccountId, a.AccountSessionToken, a.SyncPolicy, null);
            await Quietly(c.PullAsync()).ConfigureAwait(false);
            return new SignInResult { AccountId = a.AccountId, IsNewAccount = a.IsNewAccount };
        }

        /// <summary>
        /// Before another account replaces this device's: pushes what it can, then decides (Reattach.Decide): replace
        /// when nothing would be lost on a sign-in, else asks the player with what would still be lost (a transfer always
        /// asks). No (or nobody to ask): the incoming session is signed out again and nothing local changes.
        /// </summary>
        async Task<bool> MayReplace(string via, string incomingAccountId, bool isNewAccount, Func<Task<AccountResponse>> incoming, Session session,
            Func<TransferPrompt, Task<bool>> confirm)
        {
            if (c.Status.Pending.Count > 0) await Quietly(c.FlushNowAsync()).ConfigureAwait(false);
            var decision = Reattach.Decide(via, c.AccountId, incomingAccountId, isNewAccount, Unsynced());
            if (decision.Action != "ask") return true;
            var yes = confirm != null
                && await confirm(new TransferPrompt { Incoming = await incoming().ConfigureAwait(false), CurrentAccountId = c.AccountId,
                    Unsynced = decision.Unsynced }).ConfigureAwait(false);
            if (!yes) await Quietly(c.Api.SignOutCurrent(session.AccountId, session)).ConfigureAwait(false);
            return yes;
        }

        /// <summary>Links a provider identity to this device's account (route 4 with the session); true when it was new for the account.</summary>
        public async Task<bool> LinkProviderAsync(string provider, string token)
        {
            if (c.AccountId == null) throw new SavepointException("unauthorized", "no account on this device to link to", 0);
            var a = await c.Api.ExchangeAuthSession(provider, token).ConfigureAwait(false);
            c.AdoptEnvelope(a.AccountId, a.AccountSessionToken, a.SyncPolicy, null);
            return a.WasProviderNewForAccount;
        }

        public Task<List<LinkedAuthProvider>> ProvidersAsync()
        {
            return c.Api.ListLinkedProviders();
        }

        /// <summary>The player's signed-in devices.</summary>
        public async Task<List<DeviceSession>> DevicesAsync()
        {
            return (await c.Api.ListSessions().ConfigureAwait(false)).Sessions;
        }

        public Task<SignOutResponse> SignOutDeviceAsync(string sessionId)
        {
            return c.Api.RevokeSession(sessionId);
        }

        /// <summary>Pushes what is pending, signs this device out on the server, and forgets the local account.</summary>
        public async Task SignOutAsync(bool keepUnsynced = false)
        {
            await Quietly(c.FlushNowAsync()).ConfigureAwait(false);
            var pending = c.Status.Pending;
            if (!keepUnsynced && pending.Count > 0)
            {
                throw new SavepointException("unsynced_saves", "saves are not on the server yet; sign out with keepUnsynced to drop them", 0,
                    new JObject { ["pending"] = new JArray(pending) });
            }
            await c.Api.SignOutCurrent().ConfigureAwait(false);
            c.ResetLocal();
        }

        public Task<SlotRestorePointList> HistoryAsync(string slotId, int? limit = null, string cursor = null)
        {
            return c.Api.SlotHistory(slotId, limit, cursor);
        }

        /// <summary>Restores a slot to a restore point (a new version on the server), then reads it back locally.</summary>
        public async Task<int> RestoreAsync(string slotId, int version)
        {
            await Quietly(c.FlushNowAsync()).ConfigureAwait(false);
            var r = c.Store.Get(slotId);
            var baseVersion = r?.Base?.Version ?? (await c.Api.GetSlot(slotId).ConfigureAwait(false)).Version;
            var answer = await c.Api.RestoreSlot(slotId, version, baseVersion).ConfigureAwait(false);
            if (answer.IsConflict)
                throw new SavepointException("conflict", slotId + " changed on the server; pull and try again", 409,
                    new JObject { ["serverVersion"] = answer.Conflict.Slot.Version });
            await c.PullAsync().ConfigureAwait(false);
            return answer.Accepted.Version;
        }

        static async Task Quietly(Task t)
        {
            try
            {
                await t.ConfigureAwait(false);
            }
            catch (Exception)
            {
                // Best effort: what could not be pushed stays pending and is reported by Status.
            }
        }
    }
}
