using System;
using System.Collections.Generic;

namespace Savepoint
{
    public sealed class ClientOptions
    {
        /// <summary>Where the API is, e.g. https://saves.example.com.</summary>
        public string BaseUrl;
        public string RuntimeKey;
        /// <summary>Where saves live on the device (default: memory, which a restart loses). Unity: UnityStorage.</summary>
        public IStorage Storage;
        /// <summary>Keeps two games (or two players) on one storage apart.</summary>
        public string Namespace = "savepoint";
        /// <summary>How a 409 is settled (README, Conflicts). Default: a three-way merge that keeps local where both sides changed a value.</summary>
        public Resolution Resolve;
        /// <summary>Per slot id ("accountData" for the account data), overriding Resolve.</summary>
        public Dictionary<string, Resolution> ResolveFor = new Dictionary<string, Resolution>();
        /// <summary>Merges of one write that may conflict again before the engine reports an error.</summary>
        public int MaxConflictRetries = 3;
        public Replay Replay = Replay.Latest;
        /// <summary>"defer" (default) or "refuse": what a forced sync inside forceSyncCooldownSeconds does.</summary>
        public string OnCooldown = "defer";
        /// <summary>Retries of one request (lost answers, 408, 429, 5xx).</summary>
        public RetryOptions Retry = new RetryOptions();
        /// <summary>A request without an answer after this long is lost and retried, in ms.</summary>
        public int TimeoutMs = 15000;
        /// <summary>Backoff of the engine's retry of a failed sync, in ms.</summary>
        public long ReconnectBaseMs = 1000;
        public long ReconnectMaxMs = 60000;
        /// <summary>The policy is read again this often while the game runs (and on every foreground); 0: never on a timer.</summary>
        public long ConfigRefreshSeconds = 300;
        public IClock Clock;
        public IHttpTransport Transport;
        /// <summary>Where events reach the game (Unity: its main thread). Default: the SynchronizationContext the client is made on.</summary>
        public IDispatcher Dispatcher;
        /// <summary>Label of this device's session on the player's device list.</summary>
        public string DeviceLabel;
    }
}
