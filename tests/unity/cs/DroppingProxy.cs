using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Savepoint.Tests
{
    /// <summary>
    /// A loopback HTTP proxy that can drop an answer: the request reaches the server and is done there, then
    /// the connection to the client closes without a byte of the answer (a lost answer, the retry's case).
    /// </summary>
    public sealed class DroppingProxy : IDisposable
    {
        readonly TcpListener listener = new TcpListener(IPAddress.Loopback, 0);
        readonly string upstream;
        readonly HttpClient http = new HttpClient();
        string dropPath;
        int dropped;
        volatile bool stopped;

        public DroppingProxy(string upstream)
        {
            this.upstream = upstream.TrimEnd('/');
            listener.Start();
            Task.Run(Accept);
        }

        public string Url { get { return "http://127.0.0.1:" + ((IPEndPoint)listener.LocalEndpoint).Port; } }
        public int Dropped { get { return Volatile.Read(ref dropped); } }

        /// <summary>Drops the answer of the next request whose path contains <paramref name="pathPart"/>.</summary>
        public void DropNext(string pathPart) { Volatile.Write(ref dropPath, pathPart); }

        async Task Accept()
        {
            while (!stopped)
            {
                TcpClient client;
                try
                {
                    client = await listener.AcceptTcpClientAsync();
                }
                catch (Exception)
                {
                    return;
                }
                var _ = Task.Run(() => Serve(client));
            }
        }

        static string ReadLine(Stream s)
        {
            var b = new List<byte>();
            for (;;)
            {
                var x = s.ReadByte();
                if (x < 0) return b.Count == 0 ? null : Encoding.ASCII.GetString(b.ToArray());
                if (x == '\n') return Encoding.ASCII.GetString(b.ToArray()).TrimEnd('\r');
                b.Add((byte)x);
            }
        }

        async Task Serve(TcpClient client)
        {
            using (client)
            {
                var s = client.GetStream();
                for (;;)
                {
                    var first = ReadLine(s);
                    if (string.IsNullOrEmpty(first)) return;
                    var parts = first.Split(' ');
                    var headers = new List<KeyValuePair<string, string>>();
                    string line;
                    while (!string.IsNullOrEmpty(line = ReadLine(s)))
                    {
                        var i = line.IndexOf(':');
                        headers.Add(new KeyValuePair<string, string>(line.Substring(0, i).Trim(), line.Substring(i + 1).Trim()));
                    }
                    var length = headers.Where(h => h.Key.Equals("content-length",
                        StringComparison.OrdinalIgnoreCase)).Select(h => int.Parse(h.Value)).FirstOrDefault();
                    var body = new byte[length];
                    for (var read = 0; read < length;) read += s.Read(body, read, length - read);
                    var m = new HttpRequestMessage(new HttpMethod(parts[0]), upstream + parts[1]);
                    if (length > 0 || parts[0] == "POST") m.Content = new ByteArrayContent(body);
                    foreach (var h in headers)
                    {
                        var k = h.Key.ToLowerInvariant();
                        if (k == "host" || k == "connection" || k == "content-length") continue;
                        if (k == "content-type") m.Content.Headers.TryAddWithoutValidation(h.Key, h.Value);
                        else m.Headers.TryAddWithoutValidation(h.Key, h.Value);
                    }
                    var res = await http.SendAsync(m);
                    var answer = await res.Content.ReadAsByteArrayAsync();
                    var drop = Volatile.Read(ref dropPath);
                    if (drop != null && parts[1].Contains(drop) && Interlocked.CompareExchange(ref dropPath, null, drop) == drop)
                    {
                        Interlocked.Increment(ref dropped);
                        client.Client.Close();
                        return;
                    }
                    var head = new StringBuilder("HTTP/1.1 " + (int)res.StatusCode + " " + res.ReasonPhrase + "\r\n");
                    foreach (var h in res.Headers.Concat(res.Content.Headers))
                    {
                        var k = h.Key.ToLowerInvariant();
                        if (k == "content-length" || k == "transfer-encoding" || k == "connection") continue;
                        head.Append(h.Key).Append(": ").Append(string.Join(", ", h.Value)).Append("\r\n");
                    }
                    head.Append("Content-Length: ").Append(answer.Length).Append("\r\nConnection: close\r\n\r\n");
                    var bytes = Encoding.ASCII.GetBytes(head.ToString());
                    await s.WriteAsync(bytes, 0, bytes.Length);
                    await s.WriteAsync(answer, 0, answer.Length);
                    await s.FlushAsync();
                    return;
                }
            }
        }

        public void Dispose()
        {
            stopped = true;
            listener.Stop();
        }
    }
}
