using System.Collections.Generic;
using System.Text;
using System.Threading.Tasks;
using UnityEngine.Networking;

namespace Savepoint.Unity
{
    /// <summary>
    /// Requests through UnityWebRequest, which every platform has (WebGL and consoles have no HttpClient).
    /// Nothing blocks: the request's completed callback finishes the task on the main thread.
    /// </summary>
    public sealed class UnityWebRequestTransport : IHttpTransport
    {
        public Task<HttpAnswer> SendAsync(HttpRequest request)
        {
            var done = new TaskCompletionSource<HttpAnswer>();
            var www = new UnityWebRequest(request.Url, request.Method);
            www.downloadHandler = new DownloadHandlerBuffer();
            if (request.Body != null) www.uploadHandler = new UploadHandlerRaw(Encoding.UTF8.GetBytes(request.Body));
            foreach (var h in request.Headers) www.SetRequestHeader(h.Key, h.Value);
            www.timeout = System.Math.Max(1, request.TimeoutMs / 1000);
            var op = www.SendWebRequest();
            op.completed += _ =>
            {
                try
                {
                    // No answer at all (DNS, refused, timeout): the client's network_error, retried.
                    if (www.result == UnityWebRequest.Result.ConnectionError)
                    {
                        done.TrySetException(new System.Net.WebException(www.error));
                        return;
                    }
                    var answer = new HttpAnswer { Status = (int)www.responseCode, Body = www.downloadHandler.text };
                    var headers = www.GetResponseHeaders() ?? new Dictionary<string, string>();
                    foreach (var h in headers) answer.Headers[h.Key.ToLowerInvariant()] = h.Value;
                    done.TrySetResult(answer);
                }
                finally
                {
                    www.Dispose();
                }
            };
            return done.Task;
        }
    }
}
