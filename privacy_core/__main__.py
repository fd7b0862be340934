"""``python -m privacy_core``: see :mod:`privacy_core.cli`."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
