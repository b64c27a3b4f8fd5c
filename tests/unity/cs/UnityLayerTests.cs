using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using System.Threading;
using System.Threading.Tasks;
using NUnit.Framework;
using Newtonsoft.Json.Linq;
using Savepoint.Unity;
using UnityEngine.Networking;

namespace Savepoint.Tests
{
    /// <summary>
    /// The Unity layer against the stand-in UnityEngine: what it does with Unity's callbacks. It proves the
    /// layer's own logic and that it compiles against these signatures, not Unity's runtime behaviour.
    /// </summary>
    [TestFixture]
    public class UnityLayerTests
    {
        static void Call(object target, string method, params object[] args)
        {
            target.GetType().GetMethod(method, BindingFlags.Instance | BindingFlags.NonPublic).Invoke(target, args);
        }

        [Test]
        public async Task EventsReachTheGameOnlyOnTheThreadThatPumpsTheDispatcher()
        {
            var d = new MainThreadDispatcher();
            var (key, _) = await TestServer.Tenant(JObject.Parse("{\"minRemoteSyncIntervalSeconds\":1}"));
            var c = TestServer.Client(key, clock: new SystemClockLike(), more: o => o.Dispatcher = d);
            var threads = new List<int>();
            c.Synced += e => threads.Add(Thread.CurrentThread.ManagedThreadId);
            await c.EnsureAccountAsync();
            c.Save("main", new JObject { ["n"] = 1 });
            await c.SyncAsync(true);
            Assert.AreEqual(0, threads.Count, "nothing is raised off the main thread");
            d.Drain();
            CollectionAssert.AreEqual(new[] { Thread.CurrentThread.ManagedThreadId }, threads);
        }

        [Test]
        public async Task PauseIsTheBackgroundAndFocusTheForeground()
        {
            var (key, _) = await TestServer.Tenant(JObject.Parse("{\"minRemoteSyncIntervalSeconds\":3600}"));
            var go = new UnityEngine.GameObject("t");
            var b = go.AddComponent<SavepointBehaviour>();
            UnityEngine.Application.persistentDataPath = TestServer.TempDir();
            var c = b.Open(TestServer.Url, key, o =>
            {
                o.Transport = new HttpClientTransport();
                o.ConfigRefreshSeconds = 0;
            });
            Assert.IsInstanceOf<FileStorage>(c.Store.Storage);
            await c.EnsureAccountAsync();
            c.Save("main", new JObject { ["n"] = 1 });
            await c.SyncAsync(true);
            c.Save("main", new JObject { ["n"] = 2 });
            Call(b, "OnApplicationPause", true);
            await c.SettledAsync();
            var api = TestServer.Api(key, TestServer.SessionOf(c));
            Assert.AreEqual(2, (await api.GetSlot("main")).Version, "OnApplicationPause(true) pushed the last save");
            await api.SyncSlot("main", 2, new JObject { ["n"] = 9 });
            Call(b, "OnApplicationFocus", true);
            for (var i = 0; i < 200 && (int)c.Load("main")["n"] != 9; i++) await Task.Delay(10);
            Assert.AreEqual(9, (int)c.Load("main")["n"], "focus regained pulled what another device wrote");
            Call(b, "OnDestroy");
        }

        [Test]
        public async Task UnityWebRequestTransportTypesAnswersAndLostConnections()
        {
            var t = new UnityWebRequestTransport();
            var pending = t.SendAsync(new HttpRequest { Method = "POST", Url = "http://x/api", Body = "{}", Headers = { ["authorization"] = "Bearer k" } });
            var www = UnityWebRequest.Sent.Last();
            Assert.AreEqual("POST", www.method);
            Assert.AreEqual("Bearer k", www.requestHeaders["authorization"]);
            Assert.IsFalse(pending.IsCompleted, "no blocking wait: the task completes on Unity's callback");
            www.Answer(429, "{\"error\":{\"code\":\"rate_limited\",\"message\":\"slow\"}}", new Dictionary<string, string> { ["Retry-After"] = "3" });
            var a = await pending;
            Assert.AreEqual(429, a.Status);
            Assert.AreEqual("3", a.Header("retry-after"));
            Assert.IsTrue(www.disposed);

            var lost = t.SendAsync(new HttpRequest { Method = "GET", Url = "http://x/healthz" });
            UnityWebRequest.Sent.Last().Answer(0, null);
            try
            {
                await lost;
                Assert.Fail("a lost connection completes the task with an exception");
            }
            catch (System.Net.WebException)
            {
            }
        }

        [Test]
        public void FrameClockRunsTimersOnlyWhenPumped()
        {
            var clock = new FrameClock();
            var ran = 0;
            clock.SetTimeout(() => ran++, 0);
            Assert.AreEqual(0, ran);
            clock.Pump();
            Assert.AreEqual(1, ran);
        }
    }
}
