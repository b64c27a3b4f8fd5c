using System;
using System.Diagnostics;
using System.Threading.Tasks;
using NUnit.Framework;
using Newtonsoft.Json.Linq;

namespace Savepoint.Tests
{
    /// <summary>A child mono process (the sample idle game) killed with SIGKILL right after Save returned loses nothing.</summary>
    [TestFixture]
    public class KilledProcessTests
    {
        static Process Start(params string[] args)
        {
            var p = new ProcessStartInfo(Environment.GetEnvironmentVariable("MONO_BIN"),
                "\"" + Environment.GetEnvironmentVariable("SAVEPOINT_IDLE_GAME") + "\" " + string.Join(" ", args))
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            return Process.Start(p);
        }

        static string Finish(Process p)
        {
            var text = p.StandardOutput.ReadToEnd() + p.StandardError.ReadToEnd();
            p.WaitForExit();
            return text;
        }

        // Three mono processes start here: on a loaded machine that alone can take longer than the suite's 30 s per test.
        [Test, Timeout(120000)]
        public async Task ASaveAcknowledgedBeforeSigkillIsSyncedByTheNextStart()
        {
            var (key, _) = await TestServer.Tenant(JObject.Parse("{\"minRemoteSyncIntervalSeconds\":3600,\"forceSyncCooldownSeconds\":1}"));
            var dir = TestServer.TempDir();
            var account = Start("--account", TestServer.Url, key, dir);
            StringAssert.Contains("account acc_", Finish(account));

            // The child's first push would go at once (no push yet to space it from): an address where nothing
            // listens keeps the save on the device, so what the server gets later can only come from the disk.
            var game = Start("--save-and-wait", "http://127.0.0.1:9", key, dir, "4242");
            try
            {
                string line;
                while ((line = await game.StandardOutput.ReadLineAsync()) != null && !line.StartsWith("saved ")) { }
                Assert.AreEqual("saved 4242", line, "Save returned in the child");
            }
            finally
            {
                // SIGKILL: no finally, no flush, no quit handler runs in the child.
                using (var kill = Process.Start("kill", "-KILL " + game.Id)) kill.WaitForExit();
                game.WaitForExit();
            }
            Assert.AreEqual(137, game.ExitCode, "killed by SIGKILL");

            // The server never saw it: the child could not reach it before it was killed.
            var reader = new SavepointClient(new ClientOptions { BaseUrl = TestServer.Url, RuntimeKey = key, Storage = new FileStorage(dir),
                ConfigRefreshSeconds = 0 });
            Assert.IsNotNull(reader.Load("main"), "the next start finds the save on the disk");
            Assert.AreEqual(4242, (int)reader.Load("main")["coins"], "the next start reads the save from the disk");
            var session = TestServer.SessionOf(reader);
            var before = await Caught(TestServer.Api(key, session).GetSlot("main"));
            Assert.AreEqual(404, before?.Status);
            reader.Dispose();

            var next = Start("--sync", TestServer.Url, key, dir);
            var output = Finish(next);
            Assert.AreEqual(0, next.ExitCode, output);
            StringAssert.Contains("sync Synced coins 4242 version 1", output);
            var server = await TestServer.Api(key, session).GetSlot("main");
            Assert.AreEqual(4242, (int)server.Data["coins"]);
            Assert.AreEqual(1, server.Version);
        }

        static async Task<SavepointException> Caught(Task t)
        {
            try
            {
                await t;
                return null;
            }
            catch (SavepointException e)
            {
                return e;
            }
        }
    }
}
