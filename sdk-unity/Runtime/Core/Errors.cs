using System;
using System.Collections.Generic;
using System.Globalization;
using Newtonsoft.Json.Linq;

namespace Savepoint
{
    /// <summary>
    /// Every failure the client reports: the server's <c>{error: {code, message, details}}</c> with its HTTP
    /// status, or one of the client's own codes (<c>network_error</c> when no answer came, status 0).
    /// </summary>
    public class SavepointException : Exception
    {
        public string Code { get; private set; }
        /// <summary>HTTP status; 0 when no answer arrived.</summary>
        public int Status { get; private set; }
        public JObject Details { get; private set; }
        /// <summary>Seconds from the Retry-After header, when sent.</summary>
        public double? RetryAfterSeconds { get; private set; }
        public string RequestId { get; private set; }

        public SavepointException(string code, string message, int status, JObject details = null, double? retryAfterSeconds = null, string requestId = null)
            : base(message)
        {
            Code = code;
            Status = status;
            Details = details ?? new JObject();
            RetryAfterSeconds = retryAfterSeconds;
            RequestId = requestId;
        }

        public override string ToString()
        {
            return "SavepointException(" + Code + ", " + Status + "): " + Message;
        }
    }

    /// <summary>How answers become exceptions, and which exceptions are worth a retry (README, Retries).</summary>
    public static class Errors
    {
        /// <summary>Turns an error answer into a SavepointException, whatever its body: a proxy's HTML page is still typed.</summary>
        public static SavepointException FromAnswer(int status, JToken body, Func<string, string> header, DateTimeOffset? now = null)
        {
            var error = body is JObject o ? o["error"] as JObject : null;
            var codeToken = error?["code"];
            var code = codeToken != null && codeToken.Type == JTokenType.String ? (string)codeToken : "http_" + status;
            var messageToken = error?["message"];
            var message = messageToken != null && messageToken.Type == JTokenType.String ? (string)messageToken : "HTTP " + status;
            var details = error?["details"] as JObject ?? new JObject();
            return new SavepointException(code, message, status, details, RetryAfter(header("retry-after"), now ?? DateTimeOffset.UtcNow),
                header("x-request-id"));
        }

        /// <summary>Retry-After as seconds, or as an HTTP date; null when absent or unreadable.</summary>
        public static double? RetryAfter(string value, DateTimeOffset now)
        {
            if (string.IsNullOrEmpty(value)) return null;
            double seconds;
            if (double.TryParse(value.Trim(), NumberStyles.Float, CultureInfo.InvariantCulture, out seconds) && !double.IsNaN(seconds)
                && !double.IsInfinity(seconds))
                return Math.Max(0, seconds);
            DateTimeOffset date;
            if (DateTimeOffset.TryParse(value, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal, out date))
                return Math.Max(0, (date - now).TotalSeconds);
            return null;
        }

        static readonly HashSet<string> sessionRefused = new HashSet<string>
        {
            "unauthorized", "session_revoked", "session_expired", "account_deleted", "account_suspended", "forbidden",
        };

        /// <summary>Codes after which this device's session can no longer be used: the engine stops instead of looping.</summary>
        public static bool RefusesSession(Exception e)
        {
            return e is SavepointException s && sessionRefused.Contains(s.Code);
        }

        /// <summary>No answer, 408, 429, 5xx, or a 409 that says the first request with this key is still running.</summary>
        public static bool IsRetryable(Exception e)
        {
            var s = e as SavepointException;
            if (s == null) return false;
            if (s.Status == 0 || s.Status == 408 || s.Status == 429 || s.Status >= 500) return true;
            return s.Status == 409 && (string)s.Details["reason"] == "in_progress";
        }

        public static SavepointException AsSavepoint(Exception e)
        {
            if (e is AggregateException a && a.InnerExceptions.Count == 1) e = a.InnerException;
            return e as SavepointException ?? new SavepointException("client_error", e.Message, 0);
        }
    }
}
