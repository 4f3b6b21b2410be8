"""Importers: agent traffic recorded in other shapes -> the tool-invocation draft's events.

``mcp`` converts MCP JSON-RPC transcripts; ``lift`` derives events from vCons in the three
pre-draft shapes (vcon-mcp-proxy dialogs, an ``mcp_session`` dialog, an ``agent_trace``
analysis); ``cli`` is ``vcon-view import``.
"""
