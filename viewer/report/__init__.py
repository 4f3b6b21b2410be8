"""Exports of the model: summary JSON, Markdown, CSV and terminal text."""
