using System.IO;
using System.Linq;
using NUnit.Framework;

namespace Savepoint.Tests
{
    /// <summary>FileStorage: any key round-trips, and a write cut short by a crash leaves the old value.</summary>
    [TestFixture]
    public class StorageTests
    {
        [Test]
        public void KeysWithAnyCharacterRoundTrip()
        {
            var dir = TestServer.TempDir();
            var s = new FileStorage(dir);
            var key = "savepoint:record:Wörld/1 \\ <slot>:\u00e9\ud83c\udfae";
            s.Set(key, "{\"a\":1}");
            s.Set("savepoint:record:other", "{}");
            s.Set("elsewhere", "{}");
            Assert.AreEqual("{\"a\":1}", new FileStorage(dir).Get(key));
            CollectionAssert.AreEquivalent(new[] { key, "savepoint:record:other" }, s.Keys("savepoint:record:").ToArray());
            Assert.IsTrue(Directory.GetFiles(dir).All(f => Path.GetFileName(f).All(ch => ch < 128 && ch != ':' && ch != '/' && ch != '\\')),
                "portable file names");
            s.Set(key, "{\"a\":2}");
            Assert.AreEqual("{\"a\":2}", s.Get(key));
            s.Remove(key);
            Assert.IsNull(s.Get(key));
        }

        [Test]
        public void AWriteCutShortLeavesTheOldValueAndItsTemporaryFileGoes()
        {
            var dir = TestServer.TempDir();
            var s = new FileStorage(dir);
            s.Set("savepoint:session", "{\"token\":\"old\"}");
            var file = Directory.GetFiles(dir).Single();
            // What a crash between the temporary file's write and the replace leaves behind.
            File.WriteAllText(file + ".0123456789abcdef.tmp", "{\"tok");
            var again = new FileStorage(dir);
            Assert.AreEqual("{\"token\":\"old\"}", again.Get("savepoint:session"));
            Assert.AreEqual(1, Directory.GetFiles(dir).Length, "the temporary file is removed");
            CollectionAssert.AreEqual(new[] { "savepoint:session" }, again.Keys("").ToArray());
        }
    }
}
