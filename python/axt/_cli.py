"""The ``axt`` command installed with the package: the crate's own command line."""

import sys

from ._axt import run_cli


def main() -> None:
    """Runs ``axt`` on this process's arguments and exits with its status."""
    # The command writes to the process's file descriptors itself, not through sys.stdout.
    sys.stdout.flush()
    sys.stderr.flush()
    raise SystemExit(run_cli(["axt", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
