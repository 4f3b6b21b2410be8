"""``textsafe``'s checks give the same answer on long ASCII text (searched character by
character of the table) as on short text (translated), for every ASCII character."""

from __future__ import annotations

import pytest

from viewer.textsafe import UNSAFE_TABLE, is_safe, safe, safe_block


@pytest.mark.parametrize("cp", range(128))
@pytest.mark.parametrize("length", [10, 5000, 40000])
def test_every_ascii_character_at_any_length(cp: int, length: int) -> None:
    c = chr(cp)
    for at in (0, length // 2, length - 1):
        text = "a" * at + c + "b" * (length - at - 1)
        assert is_safe(text) is (cp not in UNSAFE_TABLE)
        assert safe(text) == text.translate(UNSAFE_TABLE)
        kept = c in "\n\t"
        assert safe_block(text) == (text if kept else text.translate(UNSAFE_TABLE))
