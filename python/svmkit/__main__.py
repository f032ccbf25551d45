"""`python -m svmkit ...` runs the svmkit command."""

import sys

from .cli import main

sys.exit(main())
