using System;
using System.IO;
using System.Linq;
using NUnit.Framework;
using Newtonsoft.Json.Linq;

namespace Savepoint.Tests
{
    /// <summary>The folder is a valid UPM package, and its core knows nothing of UnityEngine.</summary>
    [TestFixture]
    public class PackageTests
    {
        static readonly string Root = Environment.GetEnvironmentVariable("SAVEPOINT_PACKAGE");

        [Test]
        public void PackageJsonIsUpm()
        {
            var p = JObject.Parse(File.ReadAllText(Path.Combine(Root, "package.json")));
            Assert.AreEqual("com.savepoint.client", (string)p["name"]);
            StringAssert.IsMatch(@"^\d+\.\d+\.\d+$", (string)p["version"]);
            StringAssert.IsMatch(@"^\d{4}\.\d$", (string)p["unity"]);
            Assert.IsNotNull(p["displayName"]);
            Assert.IsNotNull(p["dependencies"]["com.unity.nuget.newtonsoft-json"]);
            foreach (var s in (JArray)p["samples"]) Assert.IsTrue(Directory.Exists(Path.Combine(Root, (string)s["path"])), (string)s["path"]);
            Assert.IsTrue(File.Exists(Path.Combine(Root, "README.md")));
            Assert.IsTrue(File.Exists(Path.Combine(Root, "link.xml")));
        }

        /// <summary>
        /// Unity ignores an asset without its .meta in a read-only package (one added from a git URL): every
        /// file and folder Unity imports has one, with a GUID of its own, and no .meta is left without its asset.
        /// Folders ending in ~ and dot files are not imported.
        /// </summary>
        [Test]
        public void EveryAssetHasItsMeta()
        {
            var guids = new System.Collections.Generic.Dictionary<string, string>();
            Assert.Greater(CheckMetas(Root, guids), 30);
        }

        /// <summary>The assets under `dir` checked, with their .meta files; how many there were.</summary>
        static int CheckMetas(string dir, System.Collections.Generic.Dictionary<string, string> guids)
        {
            var seen = 0;
            foreach (var entry in Directory.GetFileSystemEntries(dir))
            {
                var name = Path.GetFileName(entry);
                if (name.StartsWith(".") || name.EndsWith("~")) continue;
                if (name.EndsWith(".meta"))
                {
                    var asset = entry.Substring(0, entry.Length - ".meta".Length);
                    Assert.IsTrue(File.Exists(asset) || Directory.Exists(asset), "a .meta without its asset: " + entry);
                    continue;
                }
                var meta = entry + ".meta";
                Assert.IsTrue(File.Exists(meta), "no .meta for " + entry + " (npm run sdk-unity:meta writes it)");
                var guid = File.ReadAllLines(meta).Select(l => l.Trim()).First(l => l.StartsWith("guid: ")).Substring(6);
                StringAssert.IsMatch("^[0-9a-f]{32}$", guid, meta);
                Assert.IsFalse(guids.ContainsKey(guid), "the GUID of " + meta + " is taken");
                guids[guid] = meta;
                StringAssert.Contains(Directory.Exists(entry) ? "folderAsset: yes" : "Importer:", File.ReadAllText(meta), meta);
                seen++;
                if (Directory.Exists(entry)) seen += CheckMetas(entry, guids);
            }
            return seen;
        }

        [Test]
        public void CoreAsmdefHasNoEngineReferences()
        {
            var a = JObject.Parse(File.ReadAllText(Path.Combine(Root, "Runtime", "Savepoint.Client.asmdef")));
            Assert.AreEqual("Savepoint.Client", (string)a["name"]);
            Assert.AreEqual(true, (bool)a["noEngineReferences"]);
            Assert.AreEqual(0, ((JArray)a["references"]).Count);
            var u = JObject.Parse(File.ReadAllText(Path.Combine(Root, "Runtime", "Unity", "Savepoint.Client.Unity.asmdef")));
            Assert.AreEqual("Savepoint.Client.Unity", (string)u["name"]);
            CollectionAssert.Contains(u["references"].Select(x => (string)x).ToList(), "Savepoint.Client");
            Assert.AreNotEqual(true, (bool?)u["noEngineReferences"]);
        }

        [Test]
        public void CoreSourcesNeverNameUnityEngine()
        {
            var core = Directory.GetFiles(Path.Combine(Root, "Runtime", "Core"), "*.cs", SearchOption.AllDirectories);
            Assert.Greater(core.Length, 10);
            foreach (var f in core) StringAssert.DoesNotContain("UnityEngine", File.ReadAllText(f), f);
            // Every .cs under Runtime/ is in one of the two assemblies.
            var all = Directory.GetFiles(Path.Combine(Root, "Runtime"), "*.cs", SearchOption.AllDirectories);
            Assert.IsTrue(all.All(f => f.Contains(Path.DirectorySeparatorChar + "Core" + Path.DirectorySeparatorChar)
                || f.Contains(Path.DirectorySeparatorChar + "Unity" + Path.DirectorySeparatorChar)));
        }

        [Test]
        public void CoreAssemblyReferencesNoUnityEngine()
        {
            var refs = typeof(SavepointClient).Assembly.GetReferencedAssemblies().Select(r => r.Name).ToList();
            CollectionAssert.DoesNotContain(refs, "UnityEngine");
            CollectionAssert.Contains(refs, "Newtonsoft.Json");
        }
    }
}
