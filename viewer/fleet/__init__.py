"""Fleet triage: many vCons scanned into tables (issue 15)."""
