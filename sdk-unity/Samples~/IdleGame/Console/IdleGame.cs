using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;
using Savepoint;

namespace Savepoint.Samples
{
    /// <summary>
    /// The C# twin of sdk/example: an idle game in the console. Every tick earns coins and saves (durable on
    /// disk at once); the client syncs on the server's policy and says what it did.
    ///   mono IdleGame.exe [baseUrl] [runtimeKey] [saveFolder] [ticks]
    /// Test hooks (tests/unity): --account (create the account and exit), --save-and-wait N (save coins N, print
    /// "saved N", then sleep until killed), --sync (push what is pending and print the server's version).
    /// </summary>
    public static class IdleGame
    {
        public static int Main(string[] args)
        {
            try
            {
                return Run(args).GetAwaiter().GetResult();
            }
            catch (SavepointException e)
            {
                Console.Error.WriteLine("savepoint error " + e.Code + " (" + e.Status + "): " + e.Message);
                return 2;
            }
        }

        static string Arg(string[] args, int i, string env, string fallback)
        {
            return args.Length > i ? args[i] : Environment.GetEnvironmentVariable(env) ?? fallback;
        }

        static async Task<int> Run(string[] args)
        {
            var mode = args.Length > 0 && args[0].StartsWith("--") ? args[0] : null;
            var rest = mode == null ? args : Shift(args);
            var baseUrl = Arg(rest, 0, "SAVEPOINT_URL", "http://127.0.0.1:3000");
            var key = Arg(rest, 1, "SAVEPOINT_RUNTIME_KEY", null);
            var folder = Arg(rest, 2, "SAVEPOINT_SAVE_DIR", Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.LocalApplicationData),
                "savepoint-idle"));
            if (key == null)
            {
                Console.Error.WriteLine("usage: mono IdleGame.exe <baseUrl> <runtimeKey> [saveFolder] [ticks]");
                return 64;
            }
            var client = SavepointClient.Open(new ClientOptions { BaseUrl = baseUrl, RuntimeKey = key, Storage = new FileStorage(folder),
                DeviceLabel = "idle console" });
            client.Synced += e => Console.WriteLine("synced " + e.Target + " v" + e.Version);
            client.Conflict += e => Console.WriteLine("merged a conflict on " + e.Target + ": " + e.Merged.ToString(Newtonsoft.Json.Formatting.None));
            client.StatusChanged += s => Console.WriteLine("status " + s.State + (s.Pending.Count > 0 ? " pending " + string.Join(",", s.Pending) : ""));

            if (mode == "--save-and-wait")
            {
                var coins = long.Parse(rest.Length > 3 ? rest[3] : "1");
                client.Save("main", new JObject { ["coins"] = coins });
                // Save returned: the data is on the disk. The test kills this process now, before any sync.
                Console.WriteLine("saved " + coins);
                Console.Out.Flush();
                Thread.Sleep(Timeout.Infinite);
            }
            if (mode == "--account")
            {
                Console.WriteLine("account " + await client.EnsureAccountAsync());
                return 0;
            }
            if (mode == "--sync")
            {
                var r = await client.SyncAsync(true);
                Console.WriteLine("sync " + r.Status + " coins " + client.Load("main")?["coins"] + " version " + (r.Targets.ContainsKey("main")
                    ? r.Targets["main"].Version : null));
                return r.Status == SyncOutcome.Synced ? 0 : 1;
            }

            var ticks = int.Parse(rest.Length > 3 ? rest[3] : "10");
            Console.WriteLine("account " + await client.EnsureAccountAsync());
            var state = client.Load("main") ?? new JObject { ["coins"] = 0, ["miners"] = 1 };
            for (var t = 1; t <= ticks; t++)
            {
                state["coins"] = (long)state["coins"] + (long)state["miners"];
                if ((long)state["coins"] >= 10 * (long)state["miners"]) state["miners"] = (long)state["miners"] + 1;
                client.Save("main", state, new JObject { ["label"] = "Idle mine", ["coins"] = state["coins"] });
                Console.WriteLine("tick " + t + ": " + state.ToString(Newtonsoft.Json.Formatting.None) + " (saved on disk)");
                await Task.Delay(200);
            }
            // Quitting is the background: the last saves leave now if the policy says so; a forced sync otherwise.
            await client.BackgroundAsync();
            var result = await client.SyncAsync(true);
            Console.WriteLine("quit: " + result.Status + ", server has coins " + (await client.Api.GetSlot("main")).Data["coins"]);
            client.Dispose();
            return 0;
        }

        static string[] Shift(string[] args)
        {
            var r = new string[Math.Max(0, args.Length - 1)];
            Array.Copy(args, 1, r, 0, r.Length);
            return r;
        }
    }
}
