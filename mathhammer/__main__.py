"""``python -m mathhammer`` is the CLI."""

from mathhammer.cli import main

if __name__ == "__main__":  # worker processes import this module again: run the CLI once
    main()
