"""Theme files: find, validate, register with Textual, and remember the user's choice.

A theme is a TOML file (format in ``themes/README.md``): a name, ``dark``, Textual's colours
(``primary`` … ``success``) and a ``[palette]`` table of vcon-view's own styles keyed like
``palette.DEFAULT_PALETTE`` (``"state:Failed"``, ``"decision:disallowed"``, ``"severity:error"``…).
Bundled themes come from the top-level ``themes/`` folder (or ``viewer/data/themes`` in an
installed copy); user themes from ``<config dir>/themes/*.toml`` and override bundled ones of the
same name. A bad file is skipped with one message naming the file and the key; nothing here ever
raises to the app. The chosen theme is kept in ``<config dir>/settings.json``, written atomically.
"""

from __future__ import annotations

import json
import os
import tempfile
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from rich.errors import StyleSyntaxError
from rich.style import Style
from textual.color import Color, ColorParseError
from textual.theme import Theme

from viewer.tui.palette import DEFAULT_PALETTE

#: The theme used when nothing is chosen, or when the chosen one is missing or broken.
DEFAULT_THEME: Final = "vcon-dark"
#: The bundled light theme; its palette also serves Textual's own light themes.
LIGHT_THEME: Final = "vcon-light"
#: Environment variable overriding the config directory (tests, portable setups).
CONFIG_ENV: Final = "VCON_VIEW_CONFIG_DIR"
SETTINGS_FILE: Final = "settings.json"

#: Textual colour keys a theme file may set (``primary`` is required).
COLOUR_KEYS: Final = ("primary", "secondary", "accent", "background", "surface", "panel",
                      "boost", "foreground", "warning", "error", "success")
TOP_KEYS: Final = frozenset({"name", "description", "dark", "palette", *COLOUR_KEYS})

_PACKAGE = Path(__file__).resolve().parent.parent  # viewer/


class ThemeError(ValueError):
    """A theme file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class VconTheme:
    """One validated theme file: Textual's theme plus vcon-view's palette overrides."""

    theme: Theme
    palette: Mapping[str, str]
    path: Path | None = None
    description: str = ""

    @property
    def name(self) -> str:
        return self.theme.name


@dataclass(slots=True)
class ThemeSet:
    """Every usable theme by name, and the messages for files that were skipped."""

    themes: dict[str, VconTheme] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def bundled_dir() -> Path:
    """The bundled themes: package data when installed, else the checkout's ``themes/``."""
    for candidate in (_PACKAGE / "data" / "themes", _PACKAGE.parent / "themes"):
        if candidate.is_dir():
            return candidate
    return _PACKAGE.parent / "themes"


def config_dir() -> Path:
    """``$VCON_VIEW_CONFIG_DIR`` or the platform's user config dir for vcon-view."""
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_config_dir("vcon-view"))


def user_themes_dir() -> Path:
    return config_dir() / "themes"


def _check_style(where: str, key: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ThemeError(f"{where}: {key}: expected a style string such as 'bold #e06c75'")
    try:
        Style.parse(value)
    except StyleSyntaxError as exc:
        raise ThemeError(f"{where}: {key}: {value!r} is not a valid style ({exc})") from None
    return value


def _check_colour(where: str, key: str, value: object) -> str:
    if not isinstance(value, str):
        raise ThemeError(f"{where}: {key}: expected a colour string such as '#0178d4'")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeError(f"{where}: {key}: {value!r} is not a colour") from None
    return value


def parse_theme(data: Mapping[str, Any], where: str, path: Path | None = None) -> VconTheme:
    """Validate one theme's table; ``where`` names it in messages. Raises ``ThemeError``."""
    for key in data:
        if key not in TOP_KEYS:
            raise ThemeError(f"{where}: {key}: unknown key (known: {', '.join(sorted(TOP_KEYS))})")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip() or any(c.isspace() for c in name):
        raise ThemeError(f"{where}: name: expected a theme name without spaces")
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ThemeError(f"{where}: dark: expected true or false")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise ThemeError(f"{where}: description: expected a string")
    if "primary" not in data:
        raise ThemeError(f"{where}: primary: missing (every theme needs a primary colour)")
    colours = {key: _check_colour(where, key, data[key]) for key in COLOUR_KEYS if key in data}
    table = data.get("palette", {})
    if not isinstance(table, Mapping):
        raise ThemeError(f"{where}: palette: expected a table")
    palette: dict[str, str] = {}
    for key, value in table.items():
        if key not in DEFAULT_PALETTE:
            raise ThemeError(f"{where}: palette.{key}: unknown key "
                             f"(known keys are listed in themes/README.md)")
        palette[key] = _check_style(where, f"palette.{key}", value)
    theme = Theme(name=name, dark=dark, **colours)
    return VconTheme(theme=theme, palette=palette, path=path, description=description)


def load_theme_file(path: Path) -> VconTheme:
    """Read and validate one ``.toml`` theme file. Raises ``ThemeError`` naming the file."""
    where = str(path)
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ThemeError(f"{where}: cannot read ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ThemeError(f"{where}: not valid TOML ({exc})") from None
    return parse_theme(data, where, path)


def load_themes(dirs: Iterable[Path]) -> ThemeSet:
    """Every ``*.toml`` in ``dirs`` (later folders override earlier ones by theme name)."""
    found = ThemeSet()
    for folder in dirs:
        try:
            files = sorted(folder.glob("*.toml"))
        except OSError:
            continue
        for path in files:
            try:
                vt = load_theme_file(path)
            except ThemeError as exc:
                found.errors.append(f"{exc} (theme skipped)")
                continue
            found.themes[vt.name] = vt
    if DEFAULT_THEME not in found.themes:  # the bundled file is missing or broken
        found.themes[DEFAULT_THEME] = builtin_default()
    return found


def builtin_default() -> VconTheme:
    """The default theme without any file: Textual's dark colours and ``DEFAULT_PALETTE``."""
    theme = Theme(name=DEFAULT_THEME, dark=True, primary="#0178D4", secondary="#004578",
                  accent="#ffa62b", warning="#ffa62b", error="#ba3c5b", success="#4EBF71",
                  foreground="#e0e0e0")
    return VconTheme(theme=theme, palette=dict(DEFAULT_PALETTE))


def palette_for(themes: Mapping[str, VconTheme], name: str, dark: bool) -> dict[str, str]:
    """The full palette for theme ``name``: its own, or ours for Textual's built-in themes."""
    vt = themes.get(name)
    if vt is None:  # a Textual theme: borrow the light palette on a light background
        vt = themes.get(LIGHT_THEME) if not dark else None
    palette = dict(DEFAULT_PALETTE)
    if vt is not None:
        palette.update(vt.palette)
    return palette


# --- the remembered choice ---------------------------------------------------------------------
def load_settings() -> dict[str, Any]:
    """The user's settings (``{}`` if missing or unreadable: never fails the app)."""
    try:
        data = json.loads((config_dir() / SETTINGS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def saved_theme() -> str | None:
    name = load_settings().get("theme")
    return name if isinstance(name, str) else None


def save_theme(name: str) -> bool:
    """Remember ``name`` in settings.json, atomically; False (no raise) if it cannot be written."""
    settings = load_settings()
    settings["theme"] = name
    folder = config_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".settings-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(settings, fh, indent=2)
                fh.write("\n")
            os.replace(tmp, folder / SETTINGS_FILE)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True
