"""``python -m privacy_core.cli`` works like ``python -m privacy_core``."""

import sys

from . import main

sys.exit(main())
