using System;
using UnityEngine;

namespace Savepoint.Unity
{
    /// <summary>
    /// The client's life in a scene: pumps its clock and dispatcher every frame, and maps the app's lifecycle
    /// to the sync policy. OnApplicationPause(true) is the background (iOS suspends rather than quits, and
    /// WebGL never calls OnApplicationQuit); focus regained is the foreground. Add it once, e.g. with Create.
    /// </summary>
    public sealed class SavepointBehaviour : MonoBehaviour
    {
        public SavepointClient Client { get; private set; }
        public readonly MainThreadDispatcher Dispatcher = new MainThreadDispatcher();
        public readonly FrameClock Clock = new FrameClock();
        bool paused;

        /// <summary>A GameObject kept across scenes with this component and a client on the device's storage.</summary>
        public static SavepointBehaviour Create(string baseUrl, string runtimeKey, Action<ClientOptions> configure = null)
        {
            var go = new GameObject("Savepoint");
            DontDestroyOnLoad(go);
            var b = go.AddComponent<SavepointBehaviour>();
            b.Open(baseUrl, runtimeKey, configure);
            return b;
        }

        /// <summary>Opens the client with Unity's transport, storage, clock and main-thread events.</summary>
        public SavepointClient Open(string baseUrl, string runtimeKey, Action<ClientOptions> configure = null)
        {
            var o = new ClientOptions
            {
                BaseUrl = baseUrl,
                RuntimeKey = runtimeKey,
                Storage = UnityStorage.Create(),
                Transport = new UnityWebRequestTransport(),
                Clock = Clock,
                Dispatcher = Dispatcher,
                DeviceLabel = SystemInfo.deviceModel,
            };
            configure?.Invoke(o);
            Client = SavepointClient.Open(o);
            return Client;
        }

        void Update()
        {
            Clock.Pump();
            Dispatcher.Drain();
        }

        void OnApplicationPause(bool pause)
        {
            if (Client == null || pause == paused) return;
            paused = pause;
            if (pause) Forget(Client.BackgroundAsync());
            else Forget(Client.ForegroundAsync());
        }

        void OnApplicationFocus(bool focus)
        {
            // Desktop and WebGL tabs lose focus without a pause: the same two moments of the policy.
            OnApplicationPause(!focus);
        }

        void OnApplicationQuit()
        {
            if (Client != null) Forget(Client.BackgroundAsync());
        }

        void OnDestroy()
        {
            Client?.Dispose();
        }

        /// <summary>Logs a failure where it happens (awaited, not continued on a thread pool: WebGL has none).</summary>
        static async void Forget(System.Threading.Tasks.Task t)
        {
            try
            {
                await t;
            }
            catch (Exception e)
            {
                Debug.LogWarning("savepoint: " + e.Message);
            }
        }
    }
}
