using System.Collections.Generic;
using System.Linq;
using Newtonsoft.Json.Linq;

namespace Savepoint
{
    /// <summary>Where a value cannot travel as JSON unchanged: object keys and array indexes from the root, and why.</summary>
    public sealed class JsonRefusal
    {
        public List<object> Path;
        /// <summary>not_finite, undefined, bigint, too_deep, not_plain_object, lone_surrogate or not_an_object (the TypeScript SDK's names).</summary>
        public string Reason;
    }

    /// <summary>
    /// Refuses, before anything is written or sent, what JSON cannot carry exactly: NaN and infinities, undefined,
    /// big integers, dates (they would come back as strings), strings with a lone UTF-16 surrogate, nesting deeper
    /// than the server's 256 levels. The checks of the TypeScript SDK's json-check.ts, on the same shared cases.
    /// </summary>
    public static class JsonCheck
    {
        public const int MaxDepth = 256;

        static readonly Dictionary<string, string> messages = new Dictionary<string, string>
        {
            ["not_finite"] = "NaN and ±Infinity have no JSON form",
            ["undefined"] = "undefined has no JSON form",
            ["bigint"] = "a BigInteger has no exact JSON form in every client",
            ["too_deep"] = "JSON nested deeper than 256 levels is refused by the server",
            ["not_plain_object"] = "a date or other non-JSON value would come back changed",
            ["lone_surrogate"] = "a string with a lone UTF-16 surrogate cannot be sent as UTF-8 unchanged",
            ["not_an_object"] = "must be a JSON object",
        };

        static bool WellFormed(string s)
        {
            for (var i = 0; i < s.Length; i++)
            {
                if (!char.IsSurrogate(s[i])) continue;
                if (!char.IsHighSurrogate(s[i]) || i + 1 >= s.Length || !char.IsLowSurrogate(s[i + 1])) return false;
                i++;
            }
            return true;
        }

        /// <summary>The first refused part in key order, depth first; null when all of it can travel.</summary>
        public static JsonRefusal Refusal(JToken value, bool mustBeObject)
        {
            if (mustBeObject && (value == null || value.Type != JTokenType.Object)) return new JsonRefusal { Path = new List<object>(),
                Reason = "not_an_object" };
            var path = new List<object>();
            var reason = Walk(value, 1, path);
            return reason == null ? null : new JsonRefusal { Path = path, Reason = reason };
        }

        static string Walk(JToken v, int depth, List<object> path)
        {
            if (v == null) return "undefined";
            switch (v.Type)
            {
                case JTokenType.Object:
                case JTokenType.Array:
                    if (depth > MaxDepth) return "too_deep";
                    var array = v.Type == JTokenType.Array;
                    var children = array ? ((JArray)v).Select((c, i) => new KeyValuePair<object, JToken>(i, c))
                        : ((JObject)v).Properties().Select(p => new KeyValuePair<object, JToken>(p.Name, p.Value));
                    foreach (var c in children)
                    {
                        path.Add(c.Key);
                        if (!array && !WellFormed((string)c.Key)) return "lone_surrogate";
                        var r = Walk(c.Value, depth + 1, path);
                        if (r != null) return r;
                        path.RemoveAt(path.Count - 1);
                    }
                    return null;
                case JTokenType.Float:
                    var d = v.Value<double>();
                    return double.IsNaN(d) || double.IsInfinity(d) ? "not_finite" : null;
                case JTokenType.Integer:
                    return ((JValue)v).Value is System.Numerics.BigInteger ? "bigint" : null;
                case JTokenType.String:
                    return WellFormed((string)v) ? null : "lone_surrogate";
                case JTokenType.Undefined:
                    return "undefined";
                case JTokenType.Null:
                case JTokenType.Boolean:
                    return null;
                default:
                    // Dates, GUIDs, bytes, TimeSpans, URIs: Newtonsoft writes them as strings, which read back as strings.
                    return "not_plain_object";
            }
        }

        /// <summary>Throws invalid_json (details: field, path, reason) when <paramref name="value"/> would not come back exactly as given.</summary>
        public static void Assert(string field, JToken value, bool mustBeObject)
        {
            var r = Refusal(value, mustBeObject);
            if (r == null) return;
            var where = r.Path.Count > 0 ? " at " + new JArray(r.Path).ToString(Newtonsoft.Json.Formatting.None) : "";
            throw new SavepointException("invalid_json", field + where + ": " + messages[r.Reason], 0,
                new JObject { ["field"] = field, ["path"] = new JArray(r.Path), ["reason"] = r.Reason });
        }
    }
}
