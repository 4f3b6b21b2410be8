"""python -m viewer: the vcon-view command."""

import sys

from viewer.cli import console_main

sys.exit(console_main())
