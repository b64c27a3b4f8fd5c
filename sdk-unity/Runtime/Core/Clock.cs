using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;

namespace Savepoint
{
    /// <summary>
    /// Time as the client sees it, in Unix milliseconds, with timers. Every wait of the client goes through
    /// it (never Task.Delay or a thread): Unity's WebGL build pumps it from Update, tests move it by hand.
    /// </summary>
    public interface IClock
    {
        long Now();
        /// <summary>Runs <paramref name="run"/> once, after <paramref name="ms"/>; returns a handle for ClearTimeout.</summary>
        object SetTimeout(Action run, long ms);
        void ClearTimeout(object handle);
    }

    public static class ClockExtensions
    {
        /// <summary>A task that completes after <paramref name="ms"/> on this clock.</summary>
        public static Task Delay(this IClock clock, long ms)
        {
            var done = new TaskCompletionSource<bool>();
            clock.SetTimeout(() => done.TrySetResult(true), ms);
            return done.Task;
        }
    }

    /// <summary>The wall clock with System.Threading timers: for .NET, Mono and Godot; Unity uses its frame clock.</summary>
    public sealed class SystemClock : IClock
    {
        public static readonly SystemClock Instance = new SystemClock();

        public long Now()
        {
            return DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        }

        public object SetTimeout(Action run, long ms)
        {
            Timer timer = null;
            timer = new Timer(_ =>
            {
                timer.Dispose();
                run();
            }, null, Timeout.Infinite, Timeout.Infinite);
            timer.Change(Math.Max(0, Math.Min(ms, int.MaxValue)), Timeout.Infinite);
            return timer;
        }

        public void ClearTimeout(object handle)
        {
            (handle as Timer)?.Dispose();
        }
    }

    /// <summary>
    /// Timers run only when <see cref="Pump"/> (or <see cref="Advance"/>) is called: the clock a game loop
    /// drives (Unity's Update, Godot's _Process) and the manual clock of tests. Thread-safe.
    /// </summary>
    public class PumpedClock : IClock
    {
        sealed class Entry
        {
            public long Id;
            public long At;
            public Action Run;
        }

        readonly object gate = new object();
        readonly Dictionary<long, Entry> timers = new Dictionary<long, Entry>();
        readonly Func<long> source;
        long nextId = 1;
        long offset;

        /// <param name="source">The time: the wall clock for a game loop; null for a clock that moves only on Advance.</param>
        public PumpedClock(Func<long> source = null, long start = 1893456000000)
        {
            this.source = source;
            offset = source == null ? start : 0;
        }

        public long Now()
        {
            lock (gate) return (source == null ? 0 : source()) + offset;
        }

        public object SetTimeout(Action run, long ms)
        {
            lock (gate)
            {
                var e = new Entry { Id = nextId++, At = Now() + Math.Max(0, ms), Run = run };
                timers[e.Id] = e;
                return e.Id;
            }
        }

        public void ClearTimeout(object handle)
        {
            if (handle is long id) lock (gate) timers.Remove(id);
        }

        /// <summary>Timers not yet run.</summary>
        public int Pending
        {
            get { lock (gate) return timers.Count; }
        }

        /// <summary>Runs every timer that is due now, in order (those they set for now too).</summary>
        public void Pump()
        {
            for (;;)
            {
                Entry due;
                lock (gate)
                {
                    var now = Now();
                    due = timers.Values.Where(t => t.At <= now).OrderBy(t => t.At).ThenBy(t => t.Id).FirstOrDefault();
                    if (due == null) return;
                    timers.Remove(due.Id);
                }
                due.Run();
            }
        }

        /// <summary>Moves time forward by <paramref name="ms"/>, running each timer that falls due at its own time.</summary>
        public void Advance(long ms)
        {
            long end;
            lock (gate) end = Now() + ms;
            for (;;)
            {
                Entry due;
                lock (gate)
                {
                    due = timers.Values.Where(t => t.At <= end).OrderBy(t => t.At).ThenBy(t => t.Id).FirstOrDefault();
                    if (due == null) break;
                    timers.Remove(due.Id);
                    offset += Math.Max(0, due.At - Now());
                }
                due.Run();
            }
            lock (gate) offset += Math.Max(0, end - Now());
        }
    }

    /// <summary>A clock that moves only when told to (tests): <c>Advance</c>, then await the client's <c>SettledAsync</c>.</summary>
    public sealed class ManualClock : PumpedClock
    {
        public ManualClock(long start = 1893456000000) : base(null, start)
        {
        }
    }
}
