using Newtonsoft.Json.Linq;
using Savepoint.Unity;
using UnityEngine;

namespace Savepoint.Samples
{
    /// <summary>
    /// An idle game's scene script: earns coins every second and saves each time (durable at once, synced on
    /// the server's policy). Put it on any GameObject and set the server and the runtime key in the Inspector.
    /// </summary>
    public sealed class IdleGameScene : MonoBehaviour
    {
        public string baseUrl = "https://saves.example.com";
        public string runtimeKey = "spk_stage_...";
        SavepointClient client;
        JObject state;
        float nextTick;
        public string statusText = "";

        async void Start()
        {
            client = SavepointBehaviour.Create(baseUrl, runtimeKey).Client;
            // Events arrive on the main thread: safe to touch the scene here.
            client.StatusChanged += s => statusText = s.State + (s.Pending.Count > 0 ? " (" + s.Pending.Count + " pending)" : "");
            client.Changed += e => { if (e.Target == "main") state = e.Data; };
            state = client.Load("main") ?? new JObject { ["coins"] = 0, ["miners"] = 1 };
            try
            {
                await client.EnsureAccountAsync();
            }
            catch (SavepointException e)
            {
                // Offline on first start: the game plays on and saves locally; the account comes with the network.
                Debug.LogWarning("savepoint: " + e.Code);
            }
        }

        void Update()
        {
            if (client == null || UnityTime() < nextTick) return;
            nextTick = UnityTime() + 1;
            state["coins"] = (long)state["coins"] + (long)state["miners"];
            client.Save("main", state, new JObject { ["label"] = "Idle mine", ["coins"] = state["coins"] });
        }

        public async void BuyMiner()
        {
            if ((long)state["coins"] < 10) return;
            state["coins"] = (long)state["coins"] - 10;
            state["miners"] = (long)state["miners"] + 1;
            client.Save("main", state);
            // A purchase is worth a forced sync; the server's cooldown decides whether it goes now.
            await client.SyncAsync(true);
        }

        static float UnityTime()
        {
            return (float)(System.DateTime.UtcNow - System.DateTime.Today).TotalSeconds;
        }
    }
}
