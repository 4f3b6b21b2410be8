"""Themes: bundled files, validation messages, remembered choice, live switch, NO_COLOR."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_tui_support import model_of

from tests.tuikit import notices
from viewer.model import spec
from viewer.tui import palette, themes
from viewer.tui.app import make_app
from viewer.tui.timeline import TimelineView

TOUR = Path(__file__).resolve().parent.parent / "demo_vcons" / "tour.vcon.json"
BUNDLED = ("vcon-dark", "vcon-light", "vcon-high-contrast", "vcon-colorblind")
OKABE_ITO = {"#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7"}
GREYS = {"#999999", "#bbbbbb"}
SIZE = (130, 36)


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets an empty config dir and leaves the default palette behind."""
    cfg = tmp_path / "config"
    monkeypatch.setenv(themes.CONFIG_ENV, str(cfg))
    monkeypatch.delenv("NO_COLOR", raising=False)
    yield cfg
    palette.reset_palette()


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def colour_of(style: str) -> str:
    return next(tok for tok in style.split() if tok.startswith("#")).lower()


# --- bundled files -------------------------------------------------------------------------------
def test_bundled_themes_load_without_errors_and_are_complete() -> None:
    found = themes.load_themes([themes.bundled_dir()])
    assert found.errors == []
    assert set(BUNDLED) <= set(found.themes)
    for name in BUNDLED:
        vt = found.themes[name]
        assert set(vt.palette) == set(palette.DEFAULT_PALETTE), name
        assert len(palette.STATE_GLYPH) == 9
        for state in palette.STATE_GLYPH:
            assert f"state:{state}" in vt.palette
    assert found.themes["vcon-light"].theme.dark is False
    assert found.themes["vcon-high-contrast"].theme.background == "#000000"


def test_default_theme_file_matches_the_builtin_palette() -> None:
    """The dark theme file and palette.DEFAULT_PALETTE must not drift apart."""
    found = themes.load_themes([themes.bundled_dir()])
    assert dict(found.themes["vcon-dark"].palette) == palette.DEFAULT_PALETTE
    assert found.themes["vcon-dark"].theme.primary == themes.builtin_default().theme.primary


def test_colorblind_theme_uses_only_okabe_ito_colours_for_meaning() -> None:
    vt = themes.load_themes([themes.bundled_dir()]).themes["vcon-colorblind"]
    keys = [k for k in vt.palette if k.startswith(("state:", "decision:", "severity:", "diff:"))]
    assert len(keys) >= 9 + 4 + 3
    for key in keys:
        assert colour_of(vt.palette[key]) in OKABE_ITO | GREYS, key
    # the nine states do not all share a few colours: at least six distinct hues
    states = {colour_of(vt.palette[f"state:{s}"]) for s in palette.STATE_GLYPH}
    assert len(states) >= 6


# --- validation ---------------------------------------------------------------------------
@pytest.mark.parametrize(("body", "key"), [
    ('name = "x"\nprimary = "#123456"\nprimry = "#123456"\n', "primry"),
    ('name = "x"\nprimary = "#12345z"\n', "primary"),
    ('name = "x"\nprimary = "#123456"\nsurface = 12\n', "surface"),
    ('name = "x"\nprimary = "#123456"\n[palette]\n"state:Runing" = "#ffffff"\n',
     "palette.state:Runing"),
    ('name = "x"\nprimary = "#123456"\n[palette]\n"state:Failed" = "bold #zzzzzz"\n',
     "palette.state:Failed"),
    ('name = "x"\nprimary = "#123456"\ndark = "yes"\n', "dark"),
    ('primary = "#123456"\n', "name"),
    ('name = "x"\n', "primary"),
])
def test_bad_theme_message_names_file_and_key(tmp_path: Path, body: str, key: str) -> None:
    path = write(tmp_path, "bad.toml", body)
    with pytest.raises(themes.ThemeError) as err:
        themes.load_theme_file(path)
    assert str(err.value).startswith(f"{path}: {key}: ")


def test_bad_toml_is_named_and_skipped(tmp_path: Path) -> None:
    write(tmp_path, "broken.toml", 'name = "x\n')
    write(tmp_path, "good.toml", 'name = "good"\nprimary = "#123456"\n')
    found = themes.load_themes([tmp_path])
    assert len(found.errors) == 1
    assert "broken.toml: not valid TOML" in found.errors[0]
    assert "theme skipped" in found.errors[0]
    assert "good" in found.themes and themes.DEFAULT_THEME in found.themes


def test_partial_palette_keeps_defaults_and_user_dir_overrides_bundled(tmp_path: Path) -> None:
    write(tmp_path, "light.toml",
          'name = "vcon-light"\ndark = false\nprimary = "#000000"\n'
          '[palette]\n"state:Failed" = "#ff0000"\n')
    found = themes.load_themes([themes.bundled_dir(), tmp_path])
    assert found.themes["vcon-light"].theme.primary == "#000000"
    full = themes.palette_for(found.themes, "vcon-light", dark=False)
    assert full["state:Failed"] == "#ff0000"
    assert full["state:Running"] == palette.DEFAULT_PALETTE["state:Running"]


def test_textual_themes_borrow_our_palette_by_lightness() -> None:
    found = themes.load_themes([themes.bundled_dir()]).themes
    assert themes.palette_for(found, "nord", dark=True) == palette.DEFAULT_PALETTE
    light = themes.palette_for(found, "textual-light", dark=False)
    assert light["state:Failed"] == found["vcon-light"].palette["state:Failed"]


# --- the remembered choice -----------------------------------------------------------------------
def test_save_and_read_theme_keeps_other_settings(_isolated: Path) -> None:
    assert themes.saved_theme() is None
    write(_isolated, "settings.json", json.dumps({"other": 1}))
    assert themes.save_theme("vcon-light") is True
    data = json.loads((_isolated / "settings.json").read_text())
    assert data == {"other": 1, "theme": "vcon-light"}
    assert themes.saved_theme() == "vcon-light"
    assert [p.name for p in _isolated.iterdir()] == ["settings.json"]  # no temp file left


def test_unwritable_config_dir_never_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = write(tmp_path, "not-a-dir", "x")
    monkeypatch.setenv(themes.CONFIG_ENV, str(blocker / "sub"))
    assert themes.save_theme("vcon-light") is False
    assert themes.saved_theme() is None


def test_corrupt_settings_are_ignored(_isolated: Path) -> None:
    write(_isolated, "settings.json", "{not json")
    assert themes.saved_theme() is None
    assert themes.save_theme("vcon-dark") is True
    assert themes.saved_theme() == "vcon-dark"


# --- in the app ---------------------------------------------------------------------------
def tour_app(**kw: object):
    return make_app(str(TOUR), model=model_of(TOUR), **kw)  # type: ignore[arg-type]


def row_colours(view: TimelineView, y: int) -> set[str]:
    return {seg.style.color.triplet.hex for seg in view.render_line(y)
            if seg.style and seg.style.color and seg.style.color.triplet}


async def test_theme_option_sets_textual_theme_and_palette() -> None:
    app = tour_app(theme="vcon-light")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.theme == "vcon-light"
        assert app.theme_messages == []
        expected = colour_of(app.theme_set.themes["vcon-light"].palette["state:Failed"])
        assert palette.state_style(spec.FAILED).color.triplet.hex == expected


async def test_live_switch_rerenders_timeline_and_is_remembered(_isolated: Path) -> None:
    app = tour_app(user_config=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.theme == themes.DEFAULT_THEME
        assert not (_isolated / "settings.json").exists()  # starting is not choosing
        view = app.screen.query_one(TimelineView)
        # three fixed rows, op-04b2 (failed) is the fourth operation (below op-03f1's
        # attempts' sub-lanes)
        failed_row = 3 + view.plan.row_of(3)
        assert "#e06c75" in row_colours(view, failed_row)
        app.theme = "vcon-high-contrast"
        await pilot.pause()
        await pilot.pause()
        assert "#ff5f5f" in row_colours(view, failed_row)
        assert "#e06c75" not in row_colours(view, failed_row)
    assert themes.saved_theme() == "vcon-high-contrast"
    again = tour_app(user_config=True)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert again.theme == "vcon-high-contrast"


async def test_vcon_themes_are_offered_in_the_theme_palette() -> None:
    app = tour_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert set(BUNDLED) <= set(app.available_themes)
        app.action_change_theme()
        await pilot.pause()
        await pilot.press(*"high-contrast")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert app.theme == "vcon-high-contrast"


async def test_bad_user_theme_is_reported_and_default_used(_isolated: Path) -> None:
    bad = write(_isolated / "themes", "mine.toml",
                'name = "mine"\nprimary = "#123456"\n[palette]\n"state:Runing" = "#fff"\n')
    themes.save_theme("mine")
    app = tour_app(user_config=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        assert app.theme == themes.DEFAULT_THEME
        assert any(str(bad) in m and "palette.state:Runing" in m for m in app.theme_messages)
        shown = notices(app)
        assert any(str(bad) in m for m in shown)
        assert any("Unknown theme 'mine'" in m for m in shown)


async def test_user_theme_file_is_loaded(_isolated: Path) -> None:
    write(_isolated / "themes", "mine.toml",
          'name = "mine"\nprimary = "#123456"\n[palette]\n"state:Failed" = "#010203"\n')
    app = tour_app(user_config=True, theme="mine")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.theme == "mine"
        assert palette.state_style(spec.FAILED).color.triplet.hex == "#010203"


async def test_without_user_config_the_saved_choice_is_ignored(_isolated: Path) -> None:
    themes.save_theme("vcon-light")
    app = tour_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.theme == themes.DEFAULT_THEME


async def test_no_color_keeps_glyphs_and_labels(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = tour_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.no_color
        svg = app.export_screenshot()
    assert "#e06c75" not in svg.lower()  # the Failed colour is gone …
    for text in ("failed", "errored", "completed", "disallowed", "✗", "✓", "◆"):
        assert text in svg  # … the glyph and label that carry the meaning stay


async def test_live_switch_recolours_an_open_detail() -> None:
    """The detail screen redraws with the new palette, not only on its next opening."""
    from viewer.tui.detail import DetailScreen

    app = tour_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("j", "j", "j", "enter")  # op-04b2, which failed
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)
        head = app.screen.query_one("#detail-head")

        def colours() -> str:
            text = head.content  # the rich Text the detail gave it
            return " ".join(str(span.style) for span in text.spans)

        assert "#e06c75" in colours()
        app.theme = "vcon-high-contrast"
        await pilot.pause()
        await pilot.pause()
        assert "#ff5f5f" in colours() and "#e06c75" not in colours()
