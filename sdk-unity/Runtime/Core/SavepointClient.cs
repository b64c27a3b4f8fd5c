using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Savepoint
{
    /// <summary>
    /// The game's side of Savepoint: local-first saves, synced on the server's policy (README, Quick start).
    /// Save is durable on the device when it returns; the server gets it when the policy allows.
    /// </summary>
    public sealed partial class SavepointClient : IDisposable
    {
        public readonly SavepointApi Api;
        public readonly LocalStore Store;
        public readonly RuntimeConfig Config;
        public readonly IClock Clock;
        public readonly ServerClock ServerClock;
        public readonly ClientOptions Options;
        /// <summary>Transfer codes, sign-in, devices, restore points.</summary>
        public readonly AccountHelpers Account;
        readonly SyncEngine engine;
        readonly IDispatcher dispatcher;
        readonly object gate;
        Session session;
        bool loaded;
        Task configRefresh;
        object pollTimer;
        bool disposed;
        bool configAnnounced;

        public event Action<SyncStatus> StatusChanged;
        public event Action<SavedEvent> Saved;
        public event Action<SyncedEvent> Synced;
        public event Action<ChangeEvent> Changed;
        public event Action<ConflictEvent> Conflict;
        public event Action<ErrorEvent> Error;
        /// <summary>The server refused the session (revoked, expired, account deleted or suspended).</summary>
        public event Action<SavepointException> Stopped;
        public event Action<RuntimeConfigResponse> ConfigChanged;

        /// <summary>A client whose saves are loaded from the device, so Load answers at once; the policy is refreshed beside (offline too).</summary>
        public static SavepointClient Open(ClientOptions options)
        {
            var c = new SavepointClient(options);
            c.Start();
            return c;
        }

        public SavepointClient(ClientOptions options)
        {
            Options = options;
            Clock = options.Clock ?? SystemClock.Instance;
            dispatcher = options.Dispatcher ?? new ContextDispatcher(SynchronizationContext.Current);
            Store = new LocalStore(options.Storage ?? new MemoryStorage(), options.Namespace ?? "savepoint");
            gate = Store.Gate;
            ServerClock = new ServerClock(Clock, offset => Store.SetValue("clockOffset", offset));
            Api = new SavepointApi(new ApiOptions
            {
                BaseUrl = options.BaseUrl,
                RuntimeKey = options.RuntimeKey,
                Transport = options.Transport,
                Clock = Clock,
                Retry = options.Retry,
                TimeoutMs = options.TimeoutMs,
                Session = () => { lock (gate) return session; },
                OnAnswer = (date, sent, received) => ServerClock.Observe(date, sent, received),
            });
            Config = new RuntimeConfig(Api, Store);
            Account = new AccountHelpers(this);
            var defaultResolution = Resolution.With(MergeRules.Default);
            engine = new SyncEngine(new EngineDeps
            {
                Push = new PushDeps
                {
                    Api = Api,
                    Store = Store,
                    SaveTime = ServerClock.Now,
                    Resolution = t => options.ResolveFor != null && options.ResolveFor.TryGetValue(t, out var r) ? r : options.Resolve ?? defaultResolution,
                    MaxConflictRetries = options.MaxConflictRetries,
                    MaxSnapshots = () => Config.Policy.MaxQueuedLocalSnapshots,
                    Replay = options.Replay,
                    Synced = e => Emit(() => Synced?.Invoke(e)),
                    Changed = e => Emit(() => Changed?.Invoke(e)),
                    Conflicted = e => Emit(() => Conflict?.Invoke(e)),
                },
                Clock = Clock,
                Policy = () => Config.Policy,
                OnCooldown = options.OnCooldown ?? "defer",
                RetryBaseMs = options.ReconnectBaseMs,
                RetryMaxMs = options.ReconnectMaxMs,
                Random = options.Retry?.Random ?? Retry.NextRandom,
                HasSession = () => { lock (gate) return session != null; },
                StatusChanged = s => Emit(() => StatusChanged?.Invoke(s)),
                Error = e => Emit(() => Error?.Invoke(e)),
                Stopped = e => Emit(() => Stopped?.Invoke(e)),
            });
        }

        /// <summary>Raises an event where the game wants it; a listener that throws does not stop the engine.</summary>
        void Emit(Action raise)
        {
            dispatcher.Post(() =>
            {
                try
                {
                    raise();
                }
                catch (Exception e)
                {
                    Console.Error.WriteLine("savepoint: a listener threw: " + e);
                }
            });
        }

        /// <summary>Reads the device's saves and session (synchronous: the storage is local). Safe to call twice.</summary>
        void LoadLocal()
        {
            lock (gate)
            {
                if (loaded) return;
                Store.Load();
                Config.Load();
                session = Json.ToObject<Session>(Store.GetValue("session"));
                var offset = Store.GetValue("clockOffset");
                ServerClock.Restore(offset != null && offset.Type == JTokenType.Integer ? (long?)offset : null);
                loaded = true;
            }
        }

        /// <summary>Loads the device's saves and session, refreshes the policy beside, and plans what is pending. Safe to call twice.</summary>
        public void Start()
        {
            var ready = new TaskCompletionSource<bool>();
            lock (gate)
            {
                if (configRefresh != null) return;
                LoadLocal();
                configRefresh = ready.Task;
            }
            // Outside the lock: a transport that answers at once runs the refresh and its event right here.
            Refresh(ready);
            engine.Schedule();
            PlanPoll();
        }

        async void Refresh(TaskCompletionSource<bool> done)
        {
            await RefreshConfig().ConfigureAwait(false);
            done.TrySetResult(true);
        }

        async Task RefreshConfig()
        {
            try
            {
                var current = await Config.Refresh().ConfigureAwait(false);
                // Once per run, then only for a new answer: the timer's 304s are no news.
                bool first;
                lock (gate)
                {
                    first = !configAnnounced;
                    configAnnounced = true;
                }
                if (first || Config.LastRefreshChanged) Emit(() => ConfigChanged?.Invoke(current));
                engine.Replan();
            }
            catch (Exception e)
            {
                // Offline, a game still saves at once, on the cached policy.
                var error = Errors.AsSavepoint(e);
                Emit(() => Error?.Invoke(new ErrorEvent { Error = error }));
            }
        }

        void PlanPoll()
        {
            var every = Options.ConfigRefreshSeconds * 1000;
            lock (gate)
            {
                if (disposed || every <= 0) return;
                var due = PolicyDecisions.ConfigRefreshDueAt(Clock.Now(), every);
                pollTimer = Clock.SetTimeout(PollOnce, due - Clock.Now());
            }
        }

        /// <summary>One timed read of the policy, then the next is planned; no continuation goes to a thread pool (WebGL has none).</summary>
        async void PollOnce()
        {
            await RefreshConfig().ConfigureAwait(false);
            PlanPoll();
        }

        /// <summary>Completes when the runtime config asked at start has answered (or failed).</summary>
        public Task ReadyAsync()
        {
            Start();
            lock (gate) return configRefresh;
        }

        /// <summary>This device's account, if it has one.</summary>
        public string AccountId
        {
            get { lock (gate) return session?.AccountId; }
        }

        /// <summary>Creates an account for this device unless it has one; returns its id.</summary>
        public async Task<string> EnsureAccountAsync(JObject body = null)
        {
            await ReadyAsync().ConfigureAwait(false);
            var id = AccountId;
            if (id != null) return id;
            body = body ?? new JObject();
            if (Options.DeviceLabel != null && body["deviceLabel"] == null) body["deviceLabel"] = Options.DeviceLabel;
            var created = await Api.CreateAccount(body).ConfigureAwait(false);
            AdoptEnvelope(created.AccountId, created.AccountSessionToken, created.SyncPolicy, created.Account);
            return created.AccountId;
        }

        /// <summary>Makes an answer's session this device's (stored with the saves), and its account state the local base.</summary>
        internal void AdoptEnvelope(string accountId, string token, SyncPolicy policy, AccountResponse account)
        {
            lock (gate)
            {
                session = new Session { AccountId = accountId, Token = token };
                Store.SetValue("session", Json.From(session));
                Config.Adopt(policy);
                if (account != null)
                {
                    var r = Store.GetOrCreate(LocalStore.AccountTarget);
                    if (!r.IsDirty) r.Base = new BaseState { Version = account.Version, Data = account.AccountData, UpdatedAt = ServerClock.Now() };
                    Store.Put(r);
                }
            }
            engine.Resume();
        }

        /// <summary>Forgets the local account, session and saves (after a sign-out or a confirmed transfer).</summary>
        internal void ResetLocal()
        {
            lock (gate)
            {
                Store.Clear();
                session = null;
                Store.SetValue("session", null);
            }
        }

        /// <summary>Durable on the device when this returns; the server gets it when the policy allows.</summary>
        public Snapshot Save(string slotId, JObject data, JObject slotInfo = null)
        {
            if (slotId == LocalStore.AccountTarget) throw new ArgumentException("\"accountData\" names the account data: use SaveAccountData");
            return SaveTarget(slotId, data, slotInfo);
        }

        /// <summary>The account-wide data, saved like a slot.</summary>
        public Snapshot SaveAccountData(JObject data)
        {
            return SaveTarget(LocalStore.AccountTarget, data, null);
        }

        Snapshot SaveTarget(string target, JObject data, JObject slotInfo)
        {
            // Refused before anything is written: a value that would not come back as saved never reaches the disk.
            JsonCheck.Assert(target == LocalStore.AccountTarget ? "accountData" : "data", data, true);
            if (slotInfo != null) JsonCheck.Assert("slotInfo", slotInfo, true);
            LoadLocal();
            Snapshot s;
            lock (gate)
            {
                var r = Store.GetOrCreate(target);
                s = r.Add(Json.Copy(data), Json.Copy(slotInfo), ServerClock.Now(), Config.Policy.MaxQueuedLocalSnapshots);
                Store.Put(r);
            }
            var seq = s.Seq;
            Emit(() => Saved?.Invoke(new SavedEvent { Target = target, Seq = seq }));
            engine.Saved();
            return new Snapshot { Seq = s.Seq, Data = Json.Copy(s.Data), SlotInfo = Json.Copy(s.SlotInfo), SavedAt = s.SavedAt };
        }
    }
}
