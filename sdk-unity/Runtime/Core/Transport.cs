using System;
using System.Collections.Generic;
using System.Linq;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Savepoint
{
    /// <summary>One HTTP request as the client sends it.</summary>
    public sealed class HttpRequest
    {
        public string Method;
        public string Url;
        public Dictionary<string, string> Headers = new Dictionary<string, string>();
        /// <summary>JSON text, or null.</summary>
        public string Body;
        /// <summary>No answer after this long counts as lost (and is retried).</summary>
        public int TimeoutMs = 15000;
    }

    /// <summary>Any answer with a status. A transport throws (any exception) only when no answer came.</summary>
    public sealed class HttpAnswer
    {
        public int Status;
        public string Body;
        /// <summary>Header names in lower case.</summary>
        public Dictionary<string, string> Headers = new Dictionary<string, string>();

        public string Header(string name)
        {
            string v;
            return Headers.TryGetValue(name.ToLowerInvariant(), out v) ? v : null;
        }
    }

    /// <summary>How requests leave the device: HttpClient here, UnityWebRequest in Unity (WebGL and consoles have no HttpClient).</summary>
    public interface IHttpTransport
    {
        Task<HttpAnswer> SendAsync(HttpRequest request);
    }

    /// <summary>The transport for .NET, Mono, Godot and Unity desktop builds.</summary>
    public sealed class HttpClientTransport : IHttpTransport
    {
        readonly HttpClient http;

        public HttpClientTransport(HttpClient http = null)
        {
            this.http = http ?? new HttpClient { Timeout = Timeout.InfiniteTimeSpan };
        }

        public async Task<HttpAnswer> SendAsync(HttpRequest request)
        {
            using (var cancel = new CancellationTokenSource(request.TimeoutMs))
            using (var message = new HttpRequestMessage(new HttpMethod(request.Method), request.Url))
            {
                if (request.Body != null) message.Content = new StringContent(request.Body, Encoding.UTF8, "application/json");
                foreach (var h in request.Headers)
                {
                    if (h.Key == "content-type") continue;
                    message.Headers.TryAddWithoutValidation(h.Key, h.Value);
                }
                using (var response = await http.SendAsync(message, cancel.Token).ConfigureAwait(false))
                {
                    var answer = new HttpAnswer { Status = (int)response.StatusCode, Body = await response.Content.ReadAsStringAsync().ConfigureAwait(false) };
                    foreach (var h in response.Headers.Concat(response.Content.Headers))
                        answer.Headers[h.Key.ToLowerInvariant()] = string.Join(", ", h.Value);
                    return answer;
                }
            }
        }
    }
}
