"""`python -m annotate` runs the command-line interface."""

from annotate.cli import main

if __name__ == "__main__":
    main()
