using System;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Savepoint
{
    /// <summary>The sync policy and game config, cached on the device and refreshed with gameConfigVersion and ETag.</summary>
    public sealed class RuntimeConfig
    {
        readonly SavepointApi api;
        readonly LocalStore store;
        readonly object gate = new object();
        SyncPolicy policy = SyncPolicy.Defaults();
        GameConfig gameConfig;
        string etag;

        internal RuntimeConfig(SavepointApi api, LocalStore store)
        {
            this.api = api;
            this.store = store;
        }

        public SyncPolicy Policy { get { lock (gate) return policy; } }
        /// <summary>Whether the last refresh brought a new answer (not a 304 or an unchanged game config).</summary>
        public bool LastRefreshChanged { get; private set; }
        public GameConfig GameConfig { get { lock (gate) return gameConfig; } }

        internal void Load()
        {
            var cached = store.GetValue("config") as JObject;
            if (cached == null) return;
            lock (gate)
            {
                policy = Json.ToObject<SyncPolicy>(cached["syncPolicy"]) ?? policy;
                gameConfig = Json.ToObject<GameConfig>(cached["gameConfig"]);
                etag = (string)cached["etag"];
            }
        }

        void Persist()
        {
            var o = new JObject { ["syncPolicy"] = Json.From(policy) };
            if (gameConfig != null) o["gameConfig"] = Json.From(gameConfig);
            if (etag != null) o["etag"] = etag;
            store.SetValue("config", o);
        }

        /// <summary>Asks route 2; an unchanged config (304, or unchanged game config) keeps the cached data.</summary>
        public async Task<RuntimeConfigResponse> Refresh()
        {
            int? version;
            string tag;
            lock (gate)
            {
                version = gameConfig != null && gameConfig.Enabled && gameConfig.Version >= 1 ? gameConfig.Version : (int?)null;
                tag = etag;
            }
            var answer = await api.RuntimeConfig(version, tag).ConfigureAwait(false);
            lock (gate)
            {
                LastRefreshChanged = !answer.NotModified && answer.Config != null;
                if (LastRefreshChanged)
                {
                    var incoming = answer.Config.GameConfig;
                    if (incoming != null && incoming.Unchanged == true && gameConfig != null) incoming.Data = gameConfig.Data;
                    policy = answer.Config.SyncPolicy ?? policy;
                    gameConfig = incoming;
                    etag = answer.ETag;
                    Persist();
                }
                return new RuntimeConfigResponse { SyncPolicy = policy, GameConfig = gameConfig };
            }
        }

        /// <summary>A sync policy from an account envelope (routes 3, 4, 10) is as current as route 2's.</summary>
        internal void Adopt(SyncPolicy p)
        {
            if (p == null) return;
            lock (gate)
            {
                policy = p;
                Persist();
            }
        }
    }
}
