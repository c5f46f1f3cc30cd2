"""``python -m benchmarks``: see benchmarks/__init__.py."""
import sys

from benchmarks.harness import main

if __name__ == "__main__":
    sys.exit(main())
