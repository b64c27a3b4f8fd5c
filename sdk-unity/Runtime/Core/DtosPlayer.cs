using System.Collections.Generic;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

// Answer bodies of the player's self-service routes (devices, restore points) and the save-based model.
namespace Savepoint
{
    [Preserve] public sealed class DeviceSession
    {
        [JsonProperty("sessionId")] public string SessionId;
        [JsonProperty("deviceLabel")] public string DeviceLabel;
        [JsonProperty("createdAt")] public string CreatedAt;
        [JsonProperty("lastUsedAt")] public string LastUsedAt;
        [JsonProperty("current")] public bool Current;
    }

    [Preserve] public sealed class SessionListResponse
    {
        [JsonProperty("accountId")] public string AccountId;
        [JsonProperty("sessions")] public List<DeviceSession> Sessions;
    }

    [Preserve] public sealed class SignOutResponse
    {
        [JsonProperty("sessionId")] public string SessionId;
        [JsonProperty("revokedAt")] public string RevokedAt;
    }

    [Preserve] public sealed class RestorePoint
    {
        [JsonProperty("version")] public int Version;
        [JsonProperty("createdAt")] public string CreatedAt;
        [JsonProperty("sizeBytes")] public long SizeBytes;
        [JsonProperty("slotInfo")] public JObject SlotInfo;
    }

    [Preserve] public sealed class SlotRestorePointList
    {
        [JsonProperty("accountId")] public string AccountId;
        [JsonProperty("slotId")] public string SlotId;
        [JsonProperty("restorePoints")] public List<RestorePoint> RestorePoints;
        [JsonProperty("next")] public string Next;
    }

    [Preserve] public sealed class DataRestorePointList
    {
        [JsonProperty("accountId")] public string AccountId;
        [JsonProperty("restorePoints")] public List<RestorePoint> RestorePoints;
        [JsonProperty("next")] public string Next;
    }

    [Preserve] public sealed class SlotVersionResponse
    {
        [JsonProperty("slotId")] public string SlotId;
        [JsonProperty("version")] public int Version;
        [JsonProperty("createdAt")] public string CreatedAt;
        [JsonProperty("slotInfo")] public JObject SlotInfo;
        [JsonProperty("data")] public JObject Data;
    }

    [Preserve] public sealed class DataVersionResponse
    {
        [JsonProperty("version")] public int Version;
        [JsonProperty("createdAt")] public string CreatedAt;
        [JsonProperty("accountData")] public JObject AccountData;
    }

    /// <summary>The save-based model (routes 18 and beside).</summary>
    [Preserve] public sealed class Save
    {
        [JsonProperty("saveId")] public string SaveId;
        [JsonProperty("externalUserId")] public string ExternalUserId;
        [JsonProperty("metadata")] public JObject Metadata;
        [JsonProperty("state")] public JObject State;
        [JsonProperty("version")] public int Version;
        [JsonProperty("createdAt")] public string CreatedAt;
        [JsonProperty("updatedAt")] public string UpdatedAt;
    }

    [Preserve] public sealed class SaveResponse
    {
        [JsonProperty("save")] public Save Save;
    }

    [Preserve] public sealed class SaveSyncResponse
    {
        [JsonProperty("status")] public string Status;
        [JsonProperty("save")] public Save Save;
    }

    /// <summary>Route 18's 409: the save as the server has it.</summary>
    [Preserve] public sealed class SaveConflictResponse
    {
        [JsonProperty("status")] public string Status;
        [JsonProperty("save")] public Save Save;
        [JsonProperty("details")] public JObject Details;
    }

    /// <summary>Route 18's answer: accepted, or the conflict body (a value, not an exception).</summary>
    public sealed class SaveWriteResult
    {
        public SaveSyncResponse Accepted;
        public SaveConflictResponse Conflict;
        public bool IsConflict { get { return Conflict != null; } }
    }

    [Preserve] public sealed class DeleteSaveResponse
    {
        [JsonProperty("saveId")] public string SaveId;
        [JsonProperty("deletedAt")] public string DeletedAt;
        [JsonProperty("alreadyDeleted")] public bool AlreadyDeleted;
    }

    [Preserve] public sealed class StripeWebhookResponse
    {
        [JsonProperty("received")] public bool Received;
    }
}
