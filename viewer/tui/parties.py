"""Which party ran an operation: the rules live in ``viewer.parties`` (the reports use them too);
the TUI imports them from here."""

from __future__ import annotations

from viewer.parties import delegated_party, is_delegated, lead_party, op_party, party_name

__all__ = ["delegated_party", "is_delegated", "lead_party", "op_party", "party_name"]
