using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;

namespace Savepoint
{
    /// <summary>
    /// Where saves live on the device: string values by key. <c>Set</c> returns only once the value is durable
    /// (a crash right after it keeps it); a crash during it keeps the old value or the new, never half of one.
    /// </summary>
    public interface IStorage
    {
        string Get(string key);
        void Set(string key, string value);
        void Remove(string key);
        IEnumerable<string> Keys(string prefix);
    }

    /// <summary>Saves that a restart loses: for tests and tools.</summary>
    public sealed class MemoryStorage : IStorage
    {
        readonly Dictionary<string, string> values = new Dictionary<string, string>();

        public string Get(string key) { lock (values) return values.TryGetValue(key, out var v) ? v : null; }
        public void Set(string key, string value) { lock (values) values[key] = value; }
        public void Remove(string key) { lock (values) values.Remove(key); }
        public IEnumerable<string> Keys(string prefix) { lock (values) return values.Keys.Where(k => k.StartsWith(prefix, StringComparison.Ordinal)).ToList(); }
    }

    /// <summary>
    /// One file per key in a folder (Unity: under Application.persistentDataPath, never PlayerPrefs, which is
    /// flushed only on quit). A write goes to a temporary file, is flushed to the disk (Flush(true) is
    /// fsync), and then atomically replaces the old file (File.Replace, or a rename when there is none).
    /// </summary>
    public sealed class FileStorage : IStorage
    {
        readonly string dir;
        readonly object gate = new object();

        public FileStorage(string directory)
        {
            dir = directory;
            Directory.CreateDirectory(dir);
            // A crash between the write and the replace leaves a temporary file: the old value stands.
            foreach (var tmp in Directory.GetFiles(dir, "*.tmp")) TryDelete(tmp);
        }

        /// <summary>Keys may hold any character (slot ids are the game's): each unsafe one becomes ~XXXX.</summary>
        static string FileName(string key)
        {
            var b = new StringBuilder();
            foreach (var c in key)
            {
                if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.') b.Append(c);
                else b.Append('~').Append(((int)c).ToString("x4"));
            }
            return b.Append(".json").ToString();
        }

        static string KeyOf(string fileName)
        {
            var name = fileName.Substring(0, fileName.Length - ".json".Length);
            var b = new StringBuilder();
            for (var i = 0; i < name.Length; i++)
            {
                if (name[i] == '~' && i + 4 < name.Length)
                {
                    b.Append((char)Convert.ToInt32(name.Substring(i + 1, 4), 16));
                    i += 4;
                }
                else b.Append(name[i]);
            }
            return b.ToString();
        }

        string PathOf(string key)
        {
            return Path.Combine(dir, FileName(key));
        }

        public string Get(string key)
        {
            lock (gate)
            {
                var path = PathOf(key);
                return File.Exists(path) ? File.ReadAllText(path, Encoding.UTF8) : null;
            }
        }

        public void Set(string key, string value)
        {
            lock (gate)
            {
                var path = PathOf(key);
                var tmp = path + "." + Guid.NewGuid().ToString("N") + ".tmp";
                var bytes = new UTF8Encoding(false).GetBytes(value);
                using (var f = new FileStream(tmp, FileMode.CreateNew, FileAccess.Write, FileShare.None))
                {
                    f.Write(bytes, 0, bytes.Length);
                    f.Flush(true);
                }
                if (File.Exists(path)) File.Replace(tmp, path, null);
                else File.Move(tmp, path);
            }
        }

        public void Remove(string key)
        {
            lock (gate) TryDelete(PathOf(key));
        }

        public IEnumerable<string> Keys(string prefix)
        {
            lock (gate)
            {
                return Directory.GetFiles(dir, "*.json").Select(Path.GetFileName).Select(KeyOf)
                    .Where(k => k.StartsWith(prefix, StringComparison.Ordinal)).OrderBy(k => k, StringComparer.Ordinal).ToList();
            }
        }

        static void TryDelete(string path)
        {
            try
            {
                File.Delete(path);
            }
            catch (IOException)
            {
            }
        }
    }
}
