// The browser events the sync policy names, declared without the DOM library.
interface Target {
  addEventListener(name: string, listener: () => void): void;
  removeEventListener(name: string, listener: () => void): void;
}

export interface LifecycleHooks {
  background(): void;
  foreground(): void;
  online(): void;
  offline(): void;
}

/**
 * Wires `visibilitychange`, `pagehide`, `online` and `offline` to the client where a browser has them
 * (README, Policy flags). Elsewhere the app calls `background()` and `foreground()` itself.
 */
export function attachBrowserLifecycle(hooks: LifecycleHooks): () => void {
  const g = globalThis as unknown as {
    window?: Target;
    document?: Target & { visibilityState?: string };
    navigator?: { onLine?: boolean };
  };
  if (!g.window || !g.document) return () => {};
  const doc = g.document;
  const visibility = () => (doc.visibilityState === "hidden" ? hooks.background() : hooks.foreground());
  const pairs: [Target, string, () => void][] = [
    [doc, "visibilitychange", visibility],
    [g.window, "pagehide", () => hooks.background()],
    [g.window, "online", () => hooks.online()],
    [g.window, "offline", () => hooks.offline()],
  ];
  for (const [t, name, l] of pairs) t.addEventListener(name, l);
  // A page opened without a network hears no `offline` event; its `online` event still comes.
  if (g.navigator?.onLine === false) hooks.offline();
  return () => {
    for (const [t, name, l] of pairs) t.removeEventListener(name, l);
  };
}
