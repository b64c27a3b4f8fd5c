using System.Collections.Generic;

namespace Savepoint
{
    /// <summary>One runtime route: what a test checks against the server's /openapi.json.</summary>
    public sealed class RouteSpec
    {
        public readonly string OperationId;
        public readonly string Method;
        public readonly string Path;
        /// <summary>none, runtimeKey, session or optionalSession.</summary>
        public readonly string Auth;
        public readonly int Ok;
        /// <summary>Takes an Idempotency-Key: one per logical write, the same on every retry of it.</summary>
        public readonly bool Idempotent;

        public RouteSpec(string operationId, string method, string path, string auth, int ok, bool idempotent)
        {
            OperationId = operationId;
            Method = method;
            Path = path;
            Auth = auth;
            Ok = ok;
            Idempotent = idempotent;
        }
    }

    /// <summary>Every route a game calls, kept by hand beside the TypeScript SDK's generated table; a test compares both with the server.</summary>
    public static class Routes
    {
        const string A = "/api/v1/accounts/{accountId}";
        public static readonly RouteSpec Health = new RouteSpec("health", "GET", "/healthz", "none", 200, false);
        public static readonly RouteSpec GetRuntimeConfig = new RouteSpec("getRuntimeConfig", "GET", "/api/v1/runtime-config", "runtimeKey", 200, false);
        public static readonly RouteSpec CreateAccount = new RouteSpec("createAccount", "POST", "/api/v1/accounts", "runtimeKey", 201, true);
        public static readonly RouteSpec ExchangeAuthSession = new RouteSpec("exchangeAuthSession", "POST", "/api/v1/accounts/auth/session",
            "optionalSession", 200, true);
        public static readonly RouteSpec ListLinkedProviders = new RouteSpec("listLinkedProviders", "GET", "/api/v1/accounts/auth/providers",
            "session", 200, false);
        public static readonly RouteSpec GetAccount = new RouteSpec("getAccount", "GET", A, "session", 200, false);
        public static readonly RouteSpec DeleteAccount = new RouteSpec("deleteAccount", "DELETE", A, "session", 200, false);
        public static readonly RouteSpec SyncAccountData = new RouteSpec("syncAccountData", "POST", A + "/data/sync", "session", 200, true);
        public static readonly RouteSpec CreateTransferCode = new RouteSpec("createTransferCode", "POST", A + "/transfer-codes", "session", 201, true);
        public static readonly RouteSpec ConsumeTransferCode = new RouteSpec("consumeTransferCode", "POST", "/api/v1/account-transfer-codes/consume",
            "runtimeKey", 200, true);
        public static readonly RouteSpec ListSlots = new RouteSpec("listSlots", "GET", A + "/slots", "session", 200, false);
        public static readonly RouteSpec CreateSlot = new RouteSpec("createSlot", "POST", A + "/slots", "session", 201, true);
        public static readonly RouteSpec GetSlot = new RouteSpec("getSlot", "GET", A + "/slots/{slotId}", "session", 200, false);
        public static readonly RouteSpec DeleteSlot = new RouteSpec("deleteSlot", "DELETE", A + "/slots/{slotId}", "session", 200, false);
        public static readonly RouteSpec SyncSlot = new RouteSpec("syncSlot", "POST", A + "/slots/{slotId}/sync", "session", 200, true);
        public static readonly RouteSpec ArchiveSlot = new RouteSpec("archiveSlot", "POST", A + "/slots/{slotId}/archive", "session", 200, true);
        public static readonly RouteSpec StripeWebhook = new RouteSpec("stripeWebhook", "POST", "/webhooks/stripe", "none", 200, false);
        public static readonly RouteSpec SyncSave = new RouteSpec("syncSave", "POST", "/api/v1/saves/{saveId}/sync", "runtimeKey", 200, true);
        public static readonly RouteSpec GetSave = new RouteSpec("getSave", "GET", "/api/v1/saves/{saveId}", "runtimeKey", 200, false);
        public static readonly RouteSpec DeleteSave = new RouteSpec("deleteSave", "DELETE", "/api/v1/saves/{saveId}", "runtimeKey", 200, false);
        public static readonly RouteSpec ListSessions = new RouteSpec("listSessions", "GET", A + "/sessions", "session", 200, false);
        public static readonly RouteSpec SignOutCurrentSession = new RouteSpec("signOutCurrentSession", "DELETE", A + "/sessions/current", "session",
            200, false);
        public static readonly RouteSpec SignOutSession = new RouteSpec("signOutSession", "DELETE", A + "/sessions/{sessionId}", "session", 200, false);
        public static readonly RouteSpec ListSlotRestorePoints = new RouteSpec("listSlotRestorePoints", "GET", A + "/slots/{slotId}/history",
            "session", 200, false);
        public static readonly RouteSpec GetSlotRestorePoint = new RouteSpec("getSlotRestorePoint", "GET", A + "/slots/{slotId}/history/{version}",
            "session", 200, false);
        public static readonly RouteSpec RestoreSlot = new RouteSpec("restoreSlot", "POST", A + "/slots/{slotId}/restore", "session", 200, true);
        public static readonly RouteSpec ListAccountDataRestorePoints = new RouteSpec("listAccountDataRestorePoints", "GET", A + "/data/history",
            "session", 200, false);
        public static readonly RouteSpec GetAccountDataRestorePoint = new RouteSpec("getAccountDataRestorePoint", "GET",
            A + "/data/history/{version}", "session", 200, false);
        public static readonly RouteSpec RestoreAccountData = new RouteSpec("restoreAccountData", "POST", A + "/data/restore", "session", 200, true);

        public static readonly IReadOnlyList<RouteSpec> All = new[]
        {
            Health, GetRuntimeConfig, CreateAccount, ExchangeAuthSession, ListLinkedProviders, GetAccount, DeleteAccount, SyncAccountData,
            CreateTransferCode, ConsumeTransferCode, ListSlots, CreateSlot, GetSlot, DeleteSlot, SyncSlot, ArchiveSlot, StripeWebhook, SyncSave,
            GetSave, DeleteSave, ListSessions, SignOutCurrentSession, SignOutSession, ListSlotRestorePoints, GetSlotRestorePoint, RestoreSlot,
            ListAccountDataRestorePoints, GetAccountDataRestorePoint, RestoreAccountData,
        };
    }
}
