"""``python -m ptoc``: the same command line as the ``ptoc`` console script."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
