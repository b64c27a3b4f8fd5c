// A minimal stand-in of the UnityEngine types the package's Unity layer uses, so that layer compiles (and
// its lifecycle logic runs) under Mono here. Kept in the tests, never shipped: the real engine is Unity's.
using System;
using System.Collections.Generic;

namespace UnityEngine
{
    public class Object
    {
        public static void DontDestroyOnLoad(Object target) { }
    }

    public class Component : Object
    {
        public GameObject gameObject;
    }

    public class Behaviour : Component
    {
        public bool enabled = true;
    }

    public class MonoBehaviour : Behaviour
    {
    }

    public sealed class GameObject : Object
    {
        public readonly string name;
        readonly List<Component> components = new List<Component>();
        public GameObject(string name) { this.name = name; }
        public T AddComponent<T>() where T : Component, new()
        {
            var c = new T { gameObject = this };
            components.Add(c);
            return c;
        }
    }

    public static class Application
    {
        public static string persistentDataPath = System.IO.Path.GetTempPath();
    }

    public static class SystemInfo
    {
        public static string deviceModel = "stand-in";
    }

    public static class Debug
    {
        public static readonly List<string> Logged = new List<string>();
        public static void Log(object m) { lock (Logged) Logged.Add("log: " + m); }
        public static void LogWarning(object m) { lock (Logged) Logged.Add("warning: " + m); }
        public static void LogException(Exception e) { lock (Logged) Logged.Add("exception: " + e.Message); }
    }

    public class AsyncOperation
    {
        public event Action<AsyncOperation> completed;
        public bool isDone;
        /// <summary>Stand-in only: what Unity does when the request finishes.</summary>
        public void Complete()
        {
            isDone = true;
            completed?.Invoke(this);
        }
    }
}

namespace UnityEngine.Networking
{
    public class DownloadHandler : IDisposable
    {
        public string text = "";
        public void Dispose() { }
    }

    public sealed class DownloadHandlerBuffer : DownloadHandler
    {
    }

    public class UploadHandler : IDisposable
    {
        public void Dispose() { }
    }

    public sealed class UploadHandlerRaw : UploadHandler
    {
        public readonly byte[] data;
        public UploadHandlerRaw(byte[] data) { this.data = data; }
    }

    public sealed class UnityWebRequestAsyncOperation : AsyncOperation
    {
    }

    /// <summary>Stand-in: records the request; a test answers it through <see cref="Answer"/>.</summary>
    public sealed class UnityWebRequest : IDisposable
    {
        public enum Result { InProgress, Success, ConnectionError, ProtocolError, DataProcessingError }

        public static readonly List<UnityWebRequest> Sent = new List<UnityWebRequest>();
        public readonly string url;
        public readonly string method;
        public readonly Dictionary<string, string> requestHeaders = new Dictionary<string, string>();
        public DownloadHandler downloadHandler;
        public UploadHandler uploadHandler;
        public int timeout;
        public long responseCode;
        public Result result = Result.InProgress;
        public string error;
        public bool disposed;
        Dictionary<string, string> responseHeaders;
        readonly UnityWebRequestAsyncOperation operation = new UnityWebRequestAsyncOperation();

        public UnityWebRequest(string url, string method)
        {
            this.url = url;
            this.method = method;
        }

        public void SetRequestHeader(string name, string value) { requestHeaders[name] = value; }
        public Dictionary<string, string> GetResponseHeaders() { return responseHeaders; }

        public UnityWebRequestAsyncOperation SendWebRequest()
        {
            lock (Sent) Sent.Add(this);
            return operation;
        }

        /// <summary>Stand-in only: the answer arrives (status 0: the connection failed).</summary>
        public void Answer(long status, string body, Dictionary<string, string> headers = null)
        {
            responseCode = status;
            result = status == 0 ? Result.ConnectionError : status >= 400 ? Result.ProtocolError : Result.Success;
            error = status == 0 ? "Cannot connect to destination host" : null;
            downloadHandler.text = body ?? "";
            responseHeaders = headers;
            operation.Complete();
        }

        public void Dispose() { disposed = true; }
    }
}
