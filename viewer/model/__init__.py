"""The model of a vCon's tool invocations: pure Python, no Textual."""
