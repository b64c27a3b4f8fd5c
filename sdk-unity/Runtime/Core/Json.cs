using System;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Savepoint
{
    /// <summary>JSON the way the client reads and writes it: one set of settings, copies, and value equality.</summary>
    public static class Json
    {
        /// <summary>Dates stay strings and numbers keep their JSON form, so a save reads back exactly as it was written.</summary>
        public static readonly JsonSerializerSettings Settings = new JsonSerializerSettings
        {
            DateParseHandling = DateParseHandling.None,
            FloatParseHandling = FloatParseHandling.Double,
            NullValueHandling = NullValueHandling.Ignore,
        };

        static readonly JsonSerializer serializer = JsonSerializer.Create(Settings);

        public static string Write(object value)
        {
            return JsonConvert.SerializeObject(value, Formatting.None, Settings);
        }

        public static T Read<T>(string text)
        {
            return JsonConvert.DeserializeObject<T>(text, Settings);
        }

        /// <summary>Parses without turning ISO dates into DateTime (Newtonsoft's default would change what the game saved).</summary>
        public static JToken Parse(string text)
        {
            using (var reader = new JsonTextReader(new System.IO.StringReader(text)) { DateParseHandling = DateParseHandling.None })
            {
                return JToken.ReadFrom(reader);
            }
        }

        public static JObject ParseObject(string text)
        {
            return Parse(text) as JObject ?? throw new FormatException("not a JSON object");
        }

        public static T ToObject<T>(JToken token)
        {
            return token == null || token.Type == JTokenType.Null ? default(T) : token.ToObject<T>(serializer);
        }

        public static JToken From(object value)
        {
            return value == null ? JValue.CreateNull() : JToken.FromObject(value, serializer);
        }

        public static JObject Copy(JObject o)
        {
            return o == null ? null : (JObject)o.DeepClone();
        }

        /// <summary>The same JSON value: numbers by value (1 and 1.0 are one number), objects by keys, arrays in order.</summary>
        public static bool Same(JToken a, JToken b)
        {
            if (IsMissing(a) || IsMissing(b)) return IsMissing(a) && IsMissing(b);
            if (IsNumber(a) && IsNumber(b)) return a.Value<double>() == b.Value<double>();
            if (a.Type != b.Type) return false;
            switch (a.Type)
            {
                case JTokenType.Object:
                    var oa = (JObject)a;
                    var ob = (JObject)b;
                    if (oa.Count != ob.Count) return false;
                    foreach (var p in oa)
                    {
                        JToken other;
                        if (!ob.TryGetValue(p.Key, out other) || !Same(p.Value, other)) return false;
                    }
                    return true;
                case JTokenType.Array:
                    var aa = (JArray)a;
                    var ab = (JArray)b;
                    if (aa.Count != ab.Count) return false;
                    for (var i = 0; i < aa.Count; i++) if (!Same(aa[i], ab[i])) return false;
                    return true;
                default:
                    return JToken.DeepEquals(a, b);
            }
        }

        /// <summary>Absent (undefined in JavaScript): no token at all. JSON null is a value.</summary>
        public static bool IsMissing(JToken t)
        {
            return t == null || t.Type == JTokenType.Undefined;
        }

        public static bool IsNumber(JToken t)
        {
            return t != null && (t.Type == JTokenType.Integer || t.Type == JTokenType.Float);
        }

        public static bool IsObject(JToken t)
        {
            return t != null && t.Type == JTokenType.Object;
        }

        public static bool IsArray(JToken t)
        {
            return t != null && t.Type == JTokenType.Array;
        }
    }
}
