using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Net.Http;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;
using Savepoint;

/// <summary>
/// The C# client's bench rows (tests/bench/csharp.ts): durable Save latency on FileStorage (each value
/// fsynced), and a replay of N queued changes beside the same syncs sent directly with the typed API.
///   mono Bench.exe baseUrl runtimeKey changes folder
/// </summary>
public static class Bench
{
    sealed class Counting : IStorage
    {
        readonly IStorage inner;
        public int Writes;
        public Counting(IStorage inner) { this.inner = inner; }
        public string Get(string key) { return inner.Get(key); }
        public void Set(string key, string value) { Writes++; inner.Set(key, value); }
        public void Remove(string key) { inner.Remove(key); }
        public IEnumerable<string> Keys(string prefix) { return inner.Keys(prefix); }
    }

    sealed class Switch : IHttpTransport
    {
        readonly HttpClientTransport inner = new HttpClientTransport();
        public volatile bool Online = true;
        public Task<HttpAnswer> SendAsync(HttpRequest r)
        {
            if (!Online) throw new HttpRequestException("offline");
            return inner.SendAsync(r);
        }
    }

    public static int Main(string[] args)
    {
        Run(args[0], args[1], int.Parse(args[2]), args[3]).GetAwaiter().GetResult();
        return 0;
    }

    static double Percentile(List<double> sorted, int p)
    {
        return sorted[Math.Min(sorted.Count - 1, (int)Math.Floor(p / 100.0 * sorted.Count))];
    }

    static async Task Run(string baseUrl, string key, int changes, string folder)
    {
        var storage = new Counting(new FileStorage(folder));
        var net = new Switch();
        var client = SavepointClient.Open(new ClientOptions
        {
            BaseUrl = baseUrl, RuntimeKey = key, Storage = storage, Transport = net, Replay = Replay.All, ConfigRefreshSeconds = 0,
            Retry = new RetryOptions { Attempts = 1 },
        });
        await client.EnsureAccountAsync();
        client.Save("main", new JObject { ["n"] = 0 });
        await client.SyncAsync(true);

        // Queued while offline: each save is local only (and durable), each its own version when replayed.
        net.Online = false;
        var blob = new string('x', 1024);
        var latencies = new List<double>();
        for (var n = 1; n <= changes; n++)
        {
            var started = Stopwatch.StartNew();
            client.Save("main", new JObject { ["n"] = n, ["blob"] = blob });
            latencies.Add(started.Elapsed.TotalMilliseconds);
        }
        latencies.Sort();
        await client.SettledAsync();
        net.Online = true;
        storage.Writes = 0;
        var replay = Stopwatch.StartNew();
        await client.ReconnectedAsync();
        await client.SettledAsync();
        var replayMs = replay.Elapsed.TotalMilliseconds;
        var replayWrites = storage.Writes;
        var replayed = (await client.Api.GetSlot("main")).Version - 1;

        // The same number of syncs sent directly, one after another, on a slot of their own.
        await client.Api.CreateSlot("direct", new JObject());
        var direct = Stopwatch.StartNew();
        for (var n = 1; n <= changes; n++)
        {
            var a = await client.Api.SyncSlot("direct", n, new JObject { ["n"] = n, ["blob"] = blob });
            if (a.IsConflict) throw new Exception("direct sync " + n + " conflicted");
        }
        var directMs = direct.Elapsed.TotalMilliseconds;
        Console.WriteLine(new JObject { ["row"] = "C# Save, FileStorage (ms)", ["p50"] = Math.Round(Percentile(latencies, 50), 3),
            ["p99"] = Math.Round(Percentile(latencies, 99), 3), ["saves"] = changes }
            .ToString(Newtonsoft.Json.Formatting.None));
        Console.WriteLine(new JObject { ["row"] = "C# replay of " + changes + " queued changes", ["versionsAdded"] = replayed,
            ["localWrites"] = replayWrites, ["ms"] = Math.Round(replayMs) }
            .ToString(Newtonsoft.Json.Formatting.None));
        Console.WriteLine(new JObject { ["row"] = "the same " + changes + " syncs sent directly",
            ["ms"] = Math.Round(directMs) }.ToString(Newtonsoft.Json.Formatting.None));
        Console.WriteLine(new JObject { ["row"] = "replay / direct", ["ratio"] = Math.Round(replayMs / directMs,
            2) }.ToString(Newtonsoft.Json.Formatting.None));
        client.Dispose();
    }
}
