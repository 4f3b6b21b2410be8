"""Issue 13: n / N say where they went in the status line, not in toasts over the lanes; the
header says how a signed file's signatures verified, from one function."""

from __future__ import annotations

from pathlib import Path

from tests.tuikit import notices
from viewer.tui.app import make_app
from viewer.tui.timeline import StatusLine

TOUR = Path(__file__).resolve().parent.parent / "demo_vcons" / "tour.vcon.json"


async def test_next_finding_is_said_in_the_status_line_without_toasts() -> None:
    app = make_app(str(TOUR))
    async with app.run_test(size=(120, 24), notifications=True) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        for _ in range(3):
            await pilot.press("n")
        await pilot.pause()
        assert not notices(app)  # nothing stacked over the lanes
        status = str(app.screen.query_one(StatusLine).render())
        f = app.model.findings[app.finding_pos]
        assert f"finding 3/{len(app.model.findings)}" in status
        assert f.kind in status and f.severity in status
        await pilot.press("N")
        await pilot.pause()
        assert "finding 2/" in str(app.screen.query_one(StatusLine).render())
        assert not notices(app)
        await pilot.press("j")  # moving on clears it: the status line is the selection's again
        await pilot.pause()
        assert "finding" not in str(app.screen.query_one(StatusLine).render())


async def test_next_finding_in_the_detail_is_said_in_its_head() -> None:
    app = make_app(str(TOUR))
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter", "n")
        await pilot.pause()
        assert not notices(app)
        head = str(app.screen.query_one("#detail-head").render())
        assert "finding 1/" in head


async def test_a_signed_files_header_says_how_it_verified() -> None:
    """Never a bare "signed" (it read as checked): the verification status follows it."""
    from viewer.model import spec
    from viewer.tui.timeline import InfoHeader

    signed = TOUR.parent / "10-signed.vcon.json"
    app = make_app(str(signed))
    async with app.run_test(size=(160, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        header = str(app.screen.query_one(InfoHeader).render())
        assert any(f"· signed: {status} (" in header for status in spec.SIGNATURE_STATUSES)
    app = make_app(str(TOUR))
    async with app.run_test(size=(160, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        header = str(app.screen.query_one(InfoHeader).render())
        assert "· unsigned ·" in header and "verified" not in header


def test_the_signature_text_is_one_function() -> None:
    from test_tui_support import model_of

    from viewer.signatures import short_status
    from viewer.tui.timeline import signature_text

    assert signature_text(model_of(TOUR).source).plain == "unsigned"
    src = model_of(TOUR.parent / "10-signed.vcon.json").source
    assert signature_text(src).plain == f"signed: {short_status(src)}"
