// Godot 4 (.NET): the engine-agnostic core of com.savepoint.client used from a node. Copy Runtime/Core into
// the Godot project (or reference a built Savepoint.Client.dll) and add Newtonsoft.Json from NuGet.
using Godot;
using Newtonsoft.Json.Linq;
using Savepoint;

public partial class SavepointNode : Node
{
    [Export] public string BaseUrl = "https://saves.example.com";
    [Export] public string RuntimeKey = "spk_stage_...";
    public SavepointClient Client { get; private set; }
    // Godot runs _Process on its main thread; the clock's timers and the events fire there.
    readonly PumpedClock clock = new PumpedClock(() => System.DateTimeOffset.UtcNow.ToUnixTimeMilliseconds(), 0);

    public override void _Ready()
    {
        Client = SavepointClient.Open(new ClientOptions
        {
            BaseUrl = BaseUrl,
            RuntimeKey = RuntimeKey,
            // user:// is the per-user data folder of the game, the persistentDataPath of Godot.
            Storage = new FileStorage(ProjectSettings.GlobalizePath("user://savepoint")),
            Clock = clock,
            DeviceLabel = OS.GetModelName(),
        });
        Client.StatusChanged += s => GD.Print($"savepoint: {s.State}, {s.Pending.Count} pending");
        _ = Client.EnsureAccountAsync();
    }

    public override void _Process(double delta)
    {
        clock.Pump();
    }

    public override void _Notification(int what)
    {
        // Mobile apps are paused rather than closed: that is the background of the sync policy.
        if (what == NotificationApplicationPaused || what == NotificationWMCloseRequest) _ = Client.BackgroundAsync();
        if (what == NotificationApplicationResumed) _ = Client.ForegroundAsync();
    }

    public void SaveProgress(long coins)
    {
        Client.Save("main", new JObject { ["coins"] = coins });
    }
}
