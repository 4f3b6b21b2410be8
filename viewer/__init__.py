"""vcon-view: incident review of AI agent tool invocations recorded in vCons."""

__version__ = "0.1.0"
