using System;
using System.Collections.Generic;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

// Request and answer bodies of the runtime routes. Newtonsoft fills them by reflection, so each keeps its
// members under IL2CPP code stripping ([Preserve], and link.xml for the whole assembly: README, IL2CPP).
namespace Savepoint
{
    /// <summary>Unity's linker keeps any member marked with an attribute of this name, whatever its namespace.</summary>
    [AttributeUsage(AttributeTargets.All, Inherited = false)]
    public sealed class PreserveAttribute : Attribute
    {
    }

    [Preserve] public sealed class SyncPolicy
    {
        [JsonProperty("minRemoteSyncIntervalSeconds")] public double MinRemoteSyncIntervalSeconds = 60;
        [JsonProperty("forceSyncCooldownSeconds")] public double ForceSyncCooldownSeconds = 10;
        [JsonProperty("syncOnAppBackground")] public bool SyncOnAppBackground = true;
        [JsonProperty("syncOnAppForeground")] public bool SyncOnAppForeground = true;
        [JsonProperty("syncOnReconnect")] public bool SyncOnReconnect = true;
        [JsonProperty("maxQueuedLocalSnapshots")] public int MaxQueuedLocalSnapshots = 25;

        /// <summary>The server's defaults (sdk/src/generated/defaults.ts): followed until route 2 has answered once.</summary>
        public static SyncPolicy Defaults()
        {
            return new SyncPolicy();
        }
    }

    [Preserve] public sealed class GameConfig
    {
        [JsonProperty("enabled")] public bool Enabled;
        [JsonProperty("unchanged")] public bool? Unchanged;
        [JsonProperty("version")] public int Version;
        [JsonProperty("checksum")] public string Checksum;
        [JsonProperty("sizeBytes")] public long SizeBytes;
        [JsonProperty("publishedAt")] public string PublishedAt;
        [JsonProperty("data")] public JObject Data;
    }

    [Preserve] public sealed class RuntimeConfigResponse
    {
        [JsonProperty("syncPolicy")] public SyncPolicy SyncPolicy;
        [JsonProperty("gameConfig")] public GameConfig GameConfig;
    }

    [Preserve] public sealed class HealthResponse
    {
        [JsonProperty("ok")] public bool Ok;
    }

    [Preserve] public sealed class SlotSummary
    {
        [JsonProperty("slotId")] public string SlotId;
        [JsonProperty("slotInfo")] public JObject SlotInfo;
        [JsonProperty("version")] public int Version;
        [JsonProperty("status")] public string Status;
        [JsonProperty("updatedAt")] public string UpdatedAt;
    }

    [Preserve] public sealed class SlotResponse
    {
        [JsonProperty("slotId")] public string SlotId;
        [JsonProperty("slotInfo")] public JObject SlotInfo;
        [JsonProperty("version")] public int Version;
        [JsonProperty("status")] public string Status;
        [JsonProperty("updatedAt")] public string UpdatedAt;
        [JsonProperty("data")] public JObject Data;
    }

    [Preserve] public sealed class AccountResponse
    {
        [JsonProperty("accountId")] public string AccountId;
        [JsonProperty("accountData")] public JObject AccountData;
        [JsonProperty("slots")] public List<SlotSummary> Slots;
        [JsonProperty("version")] public int Version;
    }

    /// <summary>Routes 3 and 10: a session for this device, the account, and the sync policy.</summary>
    [Preserve] public sealed class AccountEnvelopeResponse
    {
        [JsonProperty("accountId")] public string AccountId;
        [JsonProperty("accountSessionToken")] public string AccountSessionToken;
        [JsonProperty("account")] public AccountResponse Account;
        [JsonProperty("slot")] public SlotResponse Slot;
        [JsonProperty("syncPolicy")] public SyncPolicy SyncPolicy;
    }

    [Preserve] public sealed class AuthSessionResponse
    {
        [JsonProperty("accountId")] public string AccountId;
        [JsonProperty("accountSessionToken")] public string AccountSessionToken;
        [JsonProperty("isNewAccount")] public bool IsNewAccount;
        [JsonProperty("linkedProvider")] public string LinkedProvider;
        [JsonProperty("wasProviderNewForAccount")] public bool WasProviderNewForAccount;
        [JsonProperty("syncPolicy")] public SyncPolicy SyncPolicy;
    }

    [Preserve] public sealed class ProviderDisplay
    {
        [JsonProperty("label")] public string Label;
        [JsonProperty("emailHint")] public string EmailHint;
    }

    [Preserve] public sealed class LinkedAuthProvider
    {
        [JsonProperty("provider")] public string Provider;
        [JsonProperty("display")] public ProviderDisplay Display;
        [JsonProperty("linkedAt")] public string LinkedAt;
        [JsonProperty("lastUsedAt")] public string LastUsedAt;
    }

    /// <summary>An accepted write (routes 8 and 15, restores).</summary>
    [Preserve] public sealed class SyncAcceptedResponse
    {
        [JsonProperty("status")] public string Status;
        [JsonProperty("version")] public int Version;
        [JsonProperty("updatedAt")] public string UpdatedAt;
        [JsonProperty("historyRetained")] public bool HistoryRetained;
        [JsonProperty("warnings")] public List<string> Warnings;
    }

    [Preserve] public sealed class SlotConflictResponse
    {
        [JsonProperty("status")] public string Status;
        [JsonProperty("slot")] public SlotResponse Slot;
        [JsonProperty("version")] public int Version;
        [JsonProperty("updatedAt")] public string UpdatedAt;
        [JsonProperty("details")] public JObject Details;
    }

    [Preserve] public sealed class AccountConflictResponse
    {
        [JsonProperty("status")] public string Status;
        [JsonProperty("account")] public AccountResponse Account;
        [JsonProperty("version")] public int Version;
        [JsonProperty("updatedAt")] public string UpdatedAt;
        [JsonProperty("details")] public JObject Details;
    }

    /// <summary>A write's answer: accepted, or the 409 conflict body (a value, not an exception).</summary>
    public sealed class WriteResult<TConflict>
    {
        public SyncAcceptedResponse Accepted;
        public TConflict Conflict;
        public bool IsConflict { get { return Conflict != null; } }
    }

    [Preserve] public sealed class CreateSlotResponse
    {
        [JsonProperty("slotId")] public string SlotId;
        [JsonProperty("slotInfo")] public JObject SlotInfo;
        [JsonProperty("version")] public int Version;
        [JsonProperty("status")] public string Status;
        [JsonProperty("updatedAt")] public string UpdatedAt;
        [JsonProperty("data")] public JObject Data;
        [JsonProperty("accountId")] public string AccountId;
        [JsonProperty("account")] public AccountResponse Account;
        [JsonProperty("slot")] public SlotResponse Slot;
        [JsonProperty("syncPolicy")] public SyncPolicy SyncPolicy;
    }

    [Preserve] public sealed class SlotListResponse
    {
        [JsonProperty("accountId")] public string AccountId;
        [JsonProperty("slots")] public List<SlotSummary> Slots;
    }

    [Preserve] public sealed class DeleteSlotResponse
    {
        [JsonProperty("accountId")] public string AccountId;
        [JsonProperty("slotId")] public string SlotId;
        [JsonProperty("deletedAt")] public string DeletedAt;
        [JsonProperty("alreadyDeleted")] public bool AlreadyDeleted;
        [JsonProperty("cleanupQueued")] public bool CleanupQueued;
        [JsonProperty("account")] public AccountResponse Account;
    }

    [Preserve] public sealed class DeleteAccountResponse
    {
        [JsonProperty("accountId")] public string AccountId;
        [JsonProperty("deletedAt")] public string DeletedAt;
        [JsonProperty("deletedSlotCount")] public int DeletedSlotCount;
        [JsonProperty("alreadyDeleted")] public bool AlreadyDeleted;
        [JsonProperty("cleanupQueued")] public bool CleanupQueued;
    }

    [Preserve] public sealed class CreateTransferCodeResponse
    {
        [JsonProperty("transferCode")] public string TransferCode;
        [JsonProperty("expiresAt")] public string ExpiresAt;
        [JsonProperty("expiresInSeconds")] public int ExpiresInSeconds;
    }
}
