using System;
using System.Collections.Generic;
using System.Linq;
using Newtonsoft.Json.Linq;

namespace Savepoint
{
    /// <summary>What a resolver knows beside the three versions: which record, and when each side was written (ms).</summary>
    public sealed class MergeContext
    {
        /// <summary>A slot id, or "accountData".</summary>
        public string Target;
        public long ServerUpdatedAt;
        public long LocalSavedAt;
    }

    /// <summary>(base, server, local) => merged: base is the server state the local change was made on.</summary>
    public delegate JObject Resolver(JObject baseData, JObject server, JObject local, MergeContext context);

    /// <summary>A rule for one value; null arguments are values absent on that side.</summary>
    public delegate JToken RuleFn(JToken baseValue, JToken server, JToken local, MergeContext context);

    /// <summary>How a 409 is settled: the server's state, the local one, or a resolver (README, Conflicts).</summary>
    public sealed class Resolution
    {
        public readonly string Kind;
        public readonly Resolver Resolver;

        Resolution(string kind, Resolver resolver)
        {
            Kind = kind;
            Resolver = resolver;
        }

        public static readonly Resolution Server = new Resolution("server", null);
        public static readonly Resolution Local = new Resolution("local", null);
        public static Resolution With(Resolver r) { return new Resolution("resolver", r); }
        public static implicit operator Resolution(Resolver r) { return With(r); }

        public JObject Resolve(JObject baseData, JObject server, JObject local, MergeContext c)
        {
            if (Kind == "server") return server;
            if (Kind == "local") return local;
            return Resolver(baseData, server, local, c);
        }
    }

    /// <summary>A ready rule (max, union, latest, sum, server, local) or a delegate of the game's.</summary>
    public sealed class Rule
    {
        public readonly string Name;
        public readonly RuleFn Fn;

        Rule(string name, RuleFn fn)
        {
            Name = name;
            Fn = fn;
        }

        public static readonly Rule Max = new Rule("max", null);
        public static readonly Rule Union = new Rule("union", null);
        public static readonly Rule Latest = new Rule("latest", null);
        public static readonly Rule Sum = new Rule("sum", null);
        public static readonly Rule Server = new Rule("server", null);
        public static readonly Rule Local = new Rule("local", null);
        public static Rule Custom(RuleFn fn) { return new Rule("custom", fn); }

        /// <summary>A ready rule by its name (as the shared test vectors write it).</summary>
        public static Rule Named(string name)
        {
            switch (name)
            {
                case "max": return Max;
                case "union": return Union;
                case "latest": return Latest;
                case "sum": return Sum;
                case "server": return Server;
                case "local": return Local;
                default: throw new ArgumentException("unknown merge rule " + name);
            }
        }
    }

    /// <summary>The three-way merge, with the same rules as the TypeScript SDK's sdk/src/merge.ts.</summary>
    public static class MergeRules
    {
        static double Num(JToken v)
        {
            return Json.IsNumber(v) ? v.Value<double>() : 0;
        }

        static JToken Number(JToken a, JToken b, Func<decimal, decimal, decimal> exact, Func<double, double, double> approx)
        {
            // Whole numbers stay whole (a JSON 3, not 3.0); anything else is a double, as in JavaScript.
            Func<JToken, bool> whole = t => t == null || t.Type != JTokenType.Float;
            if (whole(a) && whole(b))
            {
                var la = Json.IsNumber(a) ? a.Value<long>() : 0;
                var lb = Json.IsNumber(b) ? b.Value<long>() : 0;
                var r = exact(la, lb);
                if (r >= long.MinValue && r <= long.MaxValue) return new JValue((long)r);
            }
            var d = approx(Num(a), Num(b));
            return d == Math.Floor(d) && Math.Abs(d) < 9e15 ? new JValue((long)d) : new JValue(d);
        }

        static JToken Apply(Rule rule, JToken b, JToken s, JToken l, MergeContext c)
        {
            if (rule.Fn != null) return rule.Fn(b, s, l, c);
            switch (rule.Name)
            {
                case "max":
                    return Number(s, l, Math.Max, Math.Max);
                case "sum":
                    // Both sides' gains (or spends) since the common base count: base + (server - base) + (local - base).
                    var sl = Number(s, l, (x, y) => x + y, (x, y) => x + y);
                    return Number(sl, Json.IsNumber(b) ? b : new JValue(0), (x, y) => x - y, (x, y) => x - y);
                case "union":
                    return UnionOf(b, s, l);
                case "latest":
                    return c.LocalSavedAt >= c.ServerUpdatedAt ? l : s;
                case "server":
                    return s;
                default:
                    return l;
            }
        }

        /// <summary>
        /// Arrays: every item of either side, server order first (an item removed on one side since the base
        /// stays removed). Objects: every key of either side, merged per key the same way. Else local.
        /// </summary>
        static JToken UnionOf(JToken b, JToken s, JToken l)
        {
            if (Json.IsArray(s) || Json.IsArray(l))
            {
                var sa = Json.IsArray(s) ? ((JArray)s).ToList() : new List<JToken>();
                var la = Json.IsArray(l) ? ((JArray)l).ToList() : new List<JToken>();
                var ba = Json.IsArray(b) ? ((JArray)b).ToList() : new List<JToken>();
                Func<List<JToken>, JToken, bool> has = (list, x) => list.Any(y => Json.Same(x, y));
                Func<JToken, bool> removed = x => has(ba, x) && (!has(sa, x) || !has(la, x));
                var outList = new List<JToken>();
                foreach (var item in sa.Concat(la)) if (!has(outList, item) && !removed(item)) outList.Add(item);
                return new JArray(outList.Select(item => item.DeepClone()));
            }
            if (Json.IsObject(s) || Json.IsObject(l))
            {
                var so = s as JObject ?? new JObject();
                var lo = l as JObject ?? new JObject();
                var bo = b as JObject ?? new JObject();
                var o = new JObject();
                foreach (var k in Keys(so, lo))
                {
                    var inS = so.TryGetValue(k, out var sv);
                    var inL = lo.TryGetValue(k, out var lv);
                    o[k] = inS && inL ? UnionOf(bo[k], sv, lv) : inS ? sv.DeepClone() : lv.DeepClone();
                }
                return o;
            }
            return l;
        }

        static IEnumerable<string> Keys(JObject a, JObject b)
        {
            var seen = new HashSet<string>();
            foreach (var p in a.Properties()) if (seen.Add(p.Name)) yield return p.Name;
            foreach (var p in b.Properties()) if (seen.Add(p.Name)) yield return p.Name;
        }

        /// <summary>
        /// A resolver from per-path rules ("stats.highScore": max, "unlocks": union). Paths without a rule merge
        /// three ways: a side that did not change since the base gives way to the one that did; when both
        /// changed, <paramref name="otherwise"/> decides (default local). Objects are merged key by key.
        /// </summary>
        public static Resolver Create(IDictionary<string, Rule> rules, Rule otherwise = null)
        {
            rules = rules ?? new Dictionary<string, Rule>();
            otherwise = otherwise ?? Rule.Local;
            Func<string, JToken, JToken, JToken, MergeContext, JToken> walk = null;
            walk = (path, b, s, l, c) =>
            {
                if (rules.TryGetValue(path, out var rule)) return Apply(rule, b, s, l, c);
                var prefix = path.Length > 0 ? path + "." : "";
                var nested = rules.Keys.Any(r => r.StartsWith(prefix, StringComparison.Ordinal));
                // Equal sides are one state, unless a rule below counts both sides' changes (two +1s that both read 2).
                if (!nested && Json.Same(s, l)) return s;
                if (Json.IsObject(s) && Json.IsObject(l) && (nested || !(Json.Same(b, s) || Json.Same(b, l))))
                {
                    var bo = b as JObject ?? new JObject();
                    var o = new JObject();
                    foreach (var k in Keys((JObject)s, (JObject)l))
                    {
                        var v = walk(prefix + k, bo[k], s[k], l[k], c);
                        if (!Json.IsMissing(v)) o[k] = v.DeepClone();
                    }
                    return o;
                }
                if (Json.Same(b, l)) return s;
                if (Json.Same(b, s)) return l;
                return Apply(otherwise, b, s, l, c);
            };
            return (b, s, l, c) => (JObject)walk("", b, s, l, c);
        }

        /// <summary>The default: a three-way merge that keeps local where both sides changed a value.</summary>
        public static readonly Resolver Default = Create(null, Rule.Local);
    }
}
