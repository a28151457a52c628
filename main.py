"""Linear Classifier Lab: `python main.py [options]` or `python main.py export ...`."""

import sys

from simulator.cli import main

if __name__ == "__main__":
    sys.exit(main())
