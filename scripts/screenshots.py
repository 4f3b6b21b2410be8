"""Regenerate the SVG screenshots in ``screenshots/`` from the demo files, in one command.

    .venv/bin/python scripts/screenshots.py [--out DIR] [NAME ...]

Each shot opens a demo vCon in a headless app (``App.run_test``) at a fixed size and theme,
presses keys, and saves the screen with ``save_screenshot``: the same input gives the same SVG.
Run it after any UI change and commit the result; ``tests/test_screenshots.py`` runs it too.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from viewer.model.build import build_model  # noqa: E402
from viewer.pipeline import open_path  # noqa: E402
from viewer.tui.app import make_app  # noqa: E402

DEMOS = ROOT / "demo_vcons"
SIZE = (160, 45)
CLAUDE = "tests/fixtures/agents/claude-code-transcript/spotter__subagent.jsonl"
DETAIL_KEYS = ("j", "j", "enter", "l", "l")  # op-03f1 issue_refund: the JSON-RPC result


@dataclass(frozen=True, slots=True)
class Shot:
    """One screenshot: file name, demo file, theme, keys pressed, then text typed (+ enter)."""

    name: str
    demo: str = "tour.vcon.json"  # in demo_vcons/, or a path from the repository root
    theme: str = "vcon-dark"
    keys: tuple[str, ...] = ()
    typed: str = ""
    caption: str = ""


THEMES = ("vcon-light", "vcon-high-contrast", "vcon-colorblind")

SHOTS: tuple[Shot, ...] = (
    Shot("timeline", caption="The timeline of the tour (default dark theme)"),
    Shot("detail-json", keys=DETAIL_KEYS, caption="Attempt detail with JSON-RPC content"),
    Shot("diff", keys=("j", "j", "l", "d"), caption="Retry diff: op-03f1 attempt 1 vs 2"),
    Shot("findings", keys=("f",), caption="Findings and diagnostics"),
    Shot("help", keys=("question_mark",), caption="Help: keys, filter tokens, glyphs"),
    Shot("filter", keys=("slash",), typed="flag:late", caption="Filter in use: flag:late"),
    Shot("context", keys=("j", "j", "c"), caption="Context and conversation"),
    Shot("subagent", demo="13-subagent-delegation.vcon.json",
         caption="A sub-agent's operations marked ↳ in the party column"),
    Shot("claude-code", demo=CLAUDE, caption="A Claude Code session opened directly"),
    Shot("claude-code-context", demo=CLAUDE, keys=("c",),
         caption="The Claude Code session's conversation and calls"),
    *(Shot(f"timeline-{t.removeprefix('vcon-')}", theme=t, caption=f"Timeline, {t} theme")
      for t in THEMES),
    *(Shot(f"detail-{t.removeprefix('vcon-')}", theme=t, keys=DETAIL_KEYS,
           caption=f"Attempt detail, {t} theme") for t in THEMES),
)


async def take(shot: Shot, out: Path) -> Path:
    """Render one shot to ``out/<name>.svg``."""
    path = ROOT / shot.demo if "/" in shot.demo else DEMOS / shot.demo
    app = make_app(str(path), theme=shot.theme, model=build_model(open_path(str(path))))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for key in shot.keys:
            await pilot.press(key)
        if shot.typed:
            await pilot.press(*shot.typed, "enter")
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        app.save_screenshot(f"{shot.name}.svg", str(out))
    return out / f"{shot.name}.svg"


async def take_all(shots: list[Shot], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    return [await take(shot, out) for shot in shots]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots",
                        help="folder for the SVGs (default: screenshots/)")
    parser.add_argument("names", nargs="*", help="only these shots (default: all)")
    args = parser.parse_args(argv)
    shots = [s for s in SHOTS if not args.names or s.name in args.names]
    unknown = set(args.names) - {s.name for s in SHOTS}
    if unknown:
        parser.error(f"unknown shot(s): {', '.join(sorted(unknown))}")
    for written in asyncio.run(take_all(shots, args.out)):
        print(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
