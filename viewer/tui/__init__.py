"""The interactive viewer (``vcon-view FILE``): presents the engine's model, never re-derives it."""
