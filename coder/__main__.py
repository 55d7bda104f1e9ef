"""``python -m coder``: the same entry point as the ``coder`` command."""

import sys

from coder.cli.main import main

sys.exit(main())
