using System;
using System.Collections.Generic;
using UnityEngine;

namespace Savepoint.Unity
{
    /// <summary>
    /// Events reach the game on Unity's main thread: actions posted from any thread (an HttpClient continuation
    /// on a desktop build) wait in a queue that SavepointBehaviour drains in Update. No thread is started.
    /// </summary>
    public sealed class MainThreadDispatcher : IDispatcher
    {
        readonly Queue<Action> queue = new Queue<Action>();

        public void Post(Action action)
        {
            lock (queue) queue.Enqueue(action);
        }

        /// <summary>Runs what is queued; called from Update on the main thread.</summary>
        public void Drain()
        {
            for (;;)
            {
                Action next;
                lock (queue)
                {
                    if (queue.Count == 0) return;
                    next = queue.Dequeue();
                }
                try
                {
                    next();
                }
                catch (Exception e)
                {
                    Debug.LogException(e);
                }
            }
        }
    }

    /// <summary>
    /// The client's clock, pumped from Update on the main thread (WebGL has no timer threads): timers run on
    /// the frame they fall due, on the wall clock, so a game paused in the background catches up on resume.
    /// </summary>
    public sealed class FrameClock : PumpedClock
    {
        public FrameClock() : base(() => DateTimeOffset.UtcNow.ToUnixTimeMilliseconds(), 0)
        {
        }
    }

    /// <summary>Saves under Application.persistentDataPath (never PlayerPrefs, which is flushed only on quit).</summary>
    public static class UnityStorage
    {
        public static FileStorage Create(string folder = "savepoint")
        {
            return new FileStorage(System.IO.Path.Combine(Application.persistentDataPath, folder));
        }
    }
}
