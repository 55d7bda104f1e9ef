import sys

from coder.cli.main import main

sys.exit(main())
