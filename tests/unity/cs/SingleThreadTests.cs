using System.Collections.Generic;
using System.Linq;
using System.Threading;
using NUnit.Framework;
using Newtonsoft.Json.Linq;
using Savepoint.Unity;
using UnityEngine.Networking;

namespace Savepoint.Tests
{
    /// <summary>
    /// The shape of a WebGL build: one thread, a clock pumped by the frame loop, requests answered by
    /// UnityWebRequest's callback. A save is pushed and acknowledged entirely on the thread that pumps and
    /// answers, and nothing is awaited: no step may hop to a thread pool (WebGL has none) or block.
    /// </summary>
    [TestFixture]
    public class SingleThreadTests
    {
        sealed class Threads : IStorage
        {
            readonly MemoryStorage inner = new MemoryStorage();
            public readonly List<int> Writers = new List<int>();
            public string Get(string key) { return inner.Get(key); }
            public void Set(string key, string value) { lock (Writers) Writers.Add(Thread.CurrentThread.ManagedThreadId); inner.Set(key, value); }
            public void Remove(string key) { inner.Remove(key); }
            public IEnumerable<string> Keys(string prefix) { return inner.Keys(prefix); }
        }

        static UnityWebRequest Next(int before)
        {
            Assert.AreEqual(before + 1, UnityWebRequest.Sent.Count, "one request sent");
            return UnityWebRequest.Sent.Last();
        }

        [Test]
        public void ASaveIsSyncedOnTheFrameThreadWithoutAwaitingAnything()
        {
            var storage = new Threads();
            storage.Set("savepoint:session", "{\"accountId\":\"acc_webgl\",\"token\":\"t\"}");
            storage.Writers.Clear();
            var clock = new FrameClock();
            var dispatcher = new MainThreadDispatcher();
            var c = new SavepointClient(new ClientOptions
            {
                BaseUrl = "http://savepoint.test", RuntimeKey = "k", Storage = storage, Clock = clock, Dispatcher = dispatcher,
                Transport = new UnityWebRequestTransport(), ConfigRefreshSeconds = 0, Retry = new RetryOptions { Attempts = 1 },
            });
            var synced = new List<int>();
            c.Synced += e => synced.Add(Thread.CurrentThread.ManagedThreadId);
            var sent = UnityWebRequest.Sent.Count;
            c.Start();
            var config = Next(sent);
            StringAssert.EndsWith("/api/v1/runtime-config", config.url);
            config.Answer(200, "{\"syncPolicy\":{\"minRemoteSyncIntervalSeconds\":60,\"forceSyncCooldownSeconds\":10,\"syncOnAppBackground\":true,"
                + "\"syncOnAppForeground\":true,\"syncOnReconnect\":true,\"maxQueuedLocalSnapshots\":25}}");

            c.Save("main", new JObject { ["n"] = 1 });
            Assert.AreEqual(sent + 1, UnityWebRequest.Sent.Count, "nothing leaves until the frame loop pumps the clock");
            clock.Pump();
            var write = Next(sent + 1);
            Assert.AreEqual("POST", write.method);
            StringAssert.EndsWith("/api/v1/accounts/acc_webgl/slots", write.url);
            Assert.AreEqual(1, c.Status.Pending.Count);
            write.Answer(201, "{\"slotId\":\"main\",\"version\":1,\"updatedAt\":\"2030-01-01T00:00:00.000Z\"}", new Dictionary<string, string>());
            // No await, no sleep: the answer's callback carried the push to its end on this thread.
            Assert.AreEqual(0, c.Status.Pending.Count, "acknowledged within the callback");
            Assert.AreEqual(SyncState.Idle, c.Status.State);
            var me = Thread.CurrentThread.ManagedThreadId;
            CollectionAssert.IsNotEmpty(storage.Writers);
            Assert.IsTrue(storage.Writers.All(t => t == me), "every write on the frame thread");
            Assert.IsEmpty(synced, "events wait for Update");
            dispatcher.Drain();
            CollectionAssert.AreEqual(new[] { me }, synced);
            c.Dispose();
        }
    }
}
