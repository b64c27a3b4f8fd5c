/**
 * What a game sends on each save (issue 30): a counter, a position and an inventory, padded once to the
 * row's size. `next()` moves the player, bumps the counter and changes one item's count, so every write
 * differs from the last (as a game's does) while the save stays the same size: it never grows. Seeded,
 * so two servers compared with each other are sent the same sequence of saves.
 */
export interface GameSave {
  counter: number;
  position: { x: number; y: number; z: number };
  inventory: { item: string; count: number }[];
  notes: string;
}

export function gameSave(bytes: number, seed = 0) {
  const save: GameSave = {
    counter: 0,
    position: { x: seed % 100, y: 0, z: (seed * 7) % 100 },
    inventory: [],
    notes: "",
  };
  const itemBytes = JSON.stringify({ item: "item-0000", count: 10 }).length + 1;
  const items = Math.max(1, Math.floor((bytes - JSON.stringify(save).length - 16) / itemBytes));
  for (let i = 0; i < items; i++)
    save.inventory.push({ item: `item-${String(i).padStart(4, "0")}`, count: 10 + (i % 90) });
  save.notes = "n".repeat(Math.max(0, bytes - JSON.stringify(save).length));
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    save,
    /** The next save: the same object, moved on (it is sent before the one after is made). */
    next(): GameSave {
      save.counter++;
      save.position.x = round(save.position.x + 0.25);
      save.position.z = round(save.position.z + 0.5);
      const item = save.inventory[save.counter % save.inventory.length]!;
      // Two digits at every step: the size does not drift.
      item.count = 10 + ((item.count - 9) % 90);
      return save;
    },
  };
}
